import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['protocols/**/*.test.ts', 'server/**/*.test.ts', 'bin/**/*.test.ts', 'test/**/*.test.ts'],
    // Container and real-node suites need a Docker engine, built images and a node that
    // .ci/run provides (npm run test:images, npm run test:cluster); `npm test` is what a
    // newcomer runs with nothing but Node and Go.
    exclude: ['**/node_modules/**', 'test/images/**', 'test/cluster/**', 'test/package/**'],
    // Model sessions run in worker threads and servers bind loopback ports: keep files in
    // separate processes and give slow CI machines room.
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    fileParallelism: true,
    maxWorkers: 2,
  },
});

import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['protocols/**/*.test.ts', 'server/**/*.test.ts', 'router/**/*.test.ts', 'bin/**/*.test.ts', 'test/**/*.test.ts'],
    // Container and real-node suites need a Docker engine, built images and a node that
    // .ci/run provides (npm run test:images, npm run test:cluster); `npm test` is what a
    // newcomer runs with nothing but Node and Go.
    exclude: ['**/node_modules/**', 'test/images/**', 'test/cluster/**', 'test/package/**', 'test/router-differential/**'],
    // Model sessions run in worker threads and servers bind loopback ports: keep files in
    // separate processes. The timeouts only catch a hung test, never decide a result: the
    // differential tests (millions of generated inputs) take ~10 s on a quiet 2-core machine
    // and 4-5x that on a loaded one, so the bound leaves room for a machine 10x slower.
    pool: 'forks',
    testTimeout: 180_000,
    hookTimeout: 300_000,
    fileParallelism: true,
    maxWorkers: 2,
  },
});

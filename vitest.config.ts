import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['protocols/**/*.test.ts', 'server/**/*.test.ts', 'bin/**/*.test.ts', 'test/**/*.test.ts'],
    // Model sessions run in worker threads and servers bind loopback ports: keep files in
    // separate processes and give slow CI machines room.
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    fileParallelism: true,
    maxWorkers: 2,
  },
});

import { defineConfig } from 'vitest/config';

/**
 * Suites on real infrastructure that .ci/run brings up first: test/images (a Docker engine
 * and the built images: scripts/docker-engine.sh, scripts/build-images.sh) and test/cluster
 * (a one-node Kubernetes on this machine), and test/package (the packed SDK installed into
 * a fresh project as a user installs it, from the npm registry), and test/router-differential
 * (KServe's own graph router beside kserve-ts's, in a network namespace:
 * test/router-differential/run.sh). Files run one at a time: each starts containers or pods
 * that compete for the same two cores and the same engine.
 */
export default defineConfig({
  test: {
    include: ['test/images/**/*.test.ts', 'test/cluster/**/*.test.ts', 'test/package/**/*.test.ts', 'test/router-differential/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 120_000,
    hookTimeout: 600_000,
    fileParallelism: false,
    maxWorkers: 1,
  },
});

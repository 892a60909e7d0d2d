/**
 * Paths of the real control-plane binaries, built (once, then cached) by
 * scripts/kube-test-binaries.sh from the Go module proxy. The first build takes many minutes:
 * call this from a beforeAll with a long timeout.
 */
import path from 'node:path';
import { memoised, runBinScript } from './bin-script.js';

export interface KubeBinaries {
  readonly apiserver: string;
  readonly controllerManager: string;
  readonly kubectl: string;
  readonly etcd: string;
}

/**
 * Resolves with the binaries' paths. Memoised per process; the script itself serialises
 * concurrent processes with a file lock.
 */
export const ensureKubeBinaries: () => Promise<KubeBinaries> = memoised(async () => {
  const dir = await runBinScript('kube-test-binaries.sh');
  return {
    apiserver: path.join(dir, 'kube-apiserver'),
    controllerManager: path.join(dir, 'kube-controller-manager'),
    kubectl: path.join(dir, 'kubectl'),
    etcd: path.join(dir, 'etcd'),
  };
});

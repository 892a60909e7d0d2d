/** A real Kubernetes control plane for controller tests: see control-plane.ts and fake-kubelet.ts. */
export { type KubeBinaries, ensureKubeBinaries } from './kube-binaries.js';
export { type HelmTools, ensureHelmTools } from './helm-tools.js';
export {
  type ControlPlaneOptions,
  type KubectlOptions,
  type KubectlResult,
  type TestControlPlane,
  removeOrphanedDirs,
  runKubectl,
  runProcess,
  startControlPlane,
} from './control-plane.js';
export { type ContainerFailure, type FakeKubelet, type FakeKubeletOptions, type InitFailure, startFakeKubelet } from './fake-kubelet.js';
export { type WaitForOptions, waitFor } from '../../helpers/wait-for.js';

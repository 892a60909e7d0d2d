/**
 * `status.modelStatus` from the predictor's pods, as KServe's PropagateModelStatus: the
 * storage-initializer init container running → Loading; terminated with an error or in
 * CrashLoopBackOff → FailedToLoad with reason ModelLoadFailed and the container's
 * termination message (the webhook sets FallbackToLogsOnError so the message holds the
 * download error); component ready → Loaded.
 */
import type { V1Pod } from '@kubernetes/client-node';
import type { ModelStatus } from '../../api/inference-service.js';
import { STORAGE_INITIALIZER_CONTAINER } from '../../constants.js';
import { newestLivePods } from './live-pods.js';

export function modelStatusFromPods(pods: readonly V1Pod[], predictorReady: boolean): ModelStatus {
  for (const pod of newestLivePods(pods)) {
    const init = pod.status?.initContainerStatuses?.find((s) => s.name === STORAGE_INITIALIZER_CONTAINER);
    if (!init) continue;
    const terminated = init.state?.terminated ?? init.lastState?.terminated;
    const crashLooping = init.state?.waiting?.reason === 'CrashLoopBackOff';
    if ((terminated && terminated.exitCode !== 0) || crashLooping) {
      return {
        transitionStatus: 'BlockedByFailedLoad',
        states: { activeModelState: '', targetModelState: 'FailedToLoad' },
        lastFailureInfo: {
          reason: 'ModelLoadFailed',
          message: terminated?.message?.trim() || init.state?.waiting?.message || 'storage-initializer failed',
          exitCode: terminated?.exitCode ?? 1,
          location: pod.metadata?.name ?? '',
        },
      };
    }
    if (!predictorReady && init.state?.running) {
      return { transitionStatus: 'InProgress', states: { activeModelState: 'Pending', targetModelState: 'Loading' } };
    }
  }
  if (predictorReady) return { transitionStatus: 'UpToDate', states: { activeModelState: 'Loaded', targetModelState: 'Loaded' } };
  return { transitionStatus: 'InProgress', states: { activeModelState: 'Pending', targetModelState: 'Pending' } };
}

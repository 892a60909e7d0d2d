/**
 * KServe's force stop (`serving.kserve.io/stop: "true"`, `utils.GetForceStopRuntime`): the
 * workloads of a stopped InferenceService or InferenceGraph are deleted, its status says
 * `Stopped` True and `Ready` False with reason Stopped; removing the annotation (or setting
 * it to anything but "true") brings them back.
 */
import type { V1ObjectMeta } from '@kubernetes/client-node';
import { ANN_STOP } from '../constants.js';

/** The condition type, and the reason on the Ready conditions of a stopped object. */
export const STOPPED = 'Stopped';
export const STOPPED_MESSAGE = `the ${ANN_STOP} annotation is true`;

export function isForceStopped(obj: { readonly metadata?: V1ObjectMeta }): boolean {
  return (obj.metadata?.annotations?.[ANN_STOP] ?? '').toLowerCase() === 'true';
}

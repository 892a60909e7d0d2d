/**
 * The pod mutator chain (KServe `pkg/webhook/admission/pod/mutator.go`): mutators run in
 * order on a copy of the pod, and the answer is the JSON patch from the original to the
 * result, so no mutator writes patch operations itself.
 */
import type { V1Pod } from '@kubernetes/client-node';
import { LABEL_ISVC } from '../../constants.js';
import { diff, type JsonPatchOperation } from '../json-patch.js';
import { injectPullerCache } from './model-cache.js';
import { injectModelcar } from './modelcar.js';
import type { PodMutationContext, PodMutator } from './pod-mutation.js';
import { injectPullerCredentials } from './puller-credentials.js';
import { injectStorageInitializer } from './storage-initializer.js';

/**
 * In KServe's order, less the mutators for features kserve-ts does not have. KServe registers
 * the modelcar injector only when modelcars are enabled; here it always runs, so that an
 * `oci://` URI with modelcars disabled is refused by name instead of reaching the
 * storage-initializer. The puller's credentials and cache take the place of KServe's agent
 * injector.
 */
export const POD_MUTATORS: readonly PodMutator[] = [injectStorageInitializer, injectModelcar, injectPullerCredentials, injectPullerCache];

/** Only pods of an InferenceService are touched (the objectSelector says so too; this is the backstop). */
export function isInferenceServicePod(pod: V1Pod): boolean {
  return pod.metadata?.labels?.[LABEL_ISVC] !== undefined;
}

export async function mutatePod(original: V1Pod, ctx: PodMutationContext, mutators: readonly PodMutator[] = POD_MUTATORS): Promise<{ pod: V1Pod; patch: JsonPatchOperation[] }> {
  const pod = structuredClone(original);
  for (const mutate of mutators) await mutate(pod, ctx);
  return { pod, patch: diff(original, pod) };
}

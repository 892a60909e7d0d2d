/**
 * A step's `serviceName` as the URL the router calls: KServe's `GetPredictorEndpoint`
 * (`pkg/controller/v1beta1/inferenceservice/utils/utils.go`). The InferenceService's
 * `status.address.url` (its entry component: the transformer when there is one) plus the
 * predict path of the entry's protocol and model name:
 *
 * - protocol: the transformer's (its first container's PROTOCOL env, else v1); without one,
 *   a custom predictor's (the same env), or the model's `protocolVersion` (v1 by default),
 *   replaced, when the model names its runtime, by the first of v1 / v2 that runtime lists
 *   (KServe's rule; a runtime listing neither cannot be in a graph);
 * - model name: `--model_name` of the transformer's or the predictor's arguments, or
 *   MLSERVER_MODEL_NAME, else the InferenceService's name (KServe's GetModelName);
 * - path: `/v1/models/{m}:predict` (v1), `/v2/models/{m}/infer` (v2), none for gRPC.
 */
import type { V1Container } from '@kubernetes/client-node';
import type { InferenceService, ProtocolVersion } from '../../api/inference-service.js';
import type { ServingRuntime } from '../../api/serving-runtime.js';

export type ServiceUrl = { readonly ok: true; readonly url: string } | { readonly ok: false; readonly reason: string; readonly message: string };

/** Looks a runtime up by name (namespaced first, then cluster-wide, as KServe's GetServingRuntime). */
export type RuntimeLookup = (namespace: string, name: string) => Promise<ServingRuntime | undefined>;

function protocolFromEnv(container: Partial<V1Container> | undefined): string {
  return container?.env?.find((e) => e.name === 'PROTOCOL')?.value ?? 'v1';
}

/** KServe's getModelNameFromArgs: the last `--model_name` given, `--model_name=x` or `--model_name x`. */
function modelNameFromArgs(args: readonly string[] | undefined): string {
  let name = '';
  for (const [i, arg] of (args ?? []).entries()) {
    if (!arg.startsWith('--model_name')) continue;
    const parts = arg.split('=');
    if (parts.length === 2) name = parts[1]!;
    const next = args![i + 1];
    if (next !== undefined && !next.startsWith('--')) name = next;
  }
  return name;
}

export function modelNameOf(isvc: InferenceService): string {
  const t = isvc.spec.transformer?.containers?.[0];
  const fromTransformer = modelNameFromArgs(t?.args);
  if (t && fromTransformer !== '') return fromTransformer;
  const model = isvc.spec.predictor.model;
  if (model) {
    const env = model.env?.find((e) => e.name === 'MLSERVER_MODEL_NAME');
    if (env?.value !== undefined) return env.value;
    const fromArgs = modelNameFromArgs(model.args);
    if (fromArgs !== '') return fromArgs;
  } else {
    const fromArgs = modelNameFromArgs(isvc.spec.predictor.containers?.[0]?.args);
    if (fromArgs !== '') return fromArgs;
  }
  return isvc.metadata.name!;
}

async function protocolOf(isvc: InferenceService, runtimes: RuntimeLookup): Promise<{ protocol: string } | { problem: string }> {
  if (isvc.spec.transformer) return { protocol: protocolFromEnv(isvc.spec.transformer.containers?.[0]) };
  const model = isvc.spec.predictor.model;
  if (!model) return { protocol: protocolFromEnv(isvc.spec.predictor.containers?.[0]) };
  let protocol: string = model.protocolVersion ?? 'v1';
  if (model.runtime) {
    const runtime = await runtimes(isvc.metadata.namespace!, model.runtime);
    if (runtime === undefined) return { problem: `the runtime ${model.runtime} of InferenceService ${isvc.metadata.name} was not found` };
    const versions: readonly ProtocolVersion[] = runtime.spec.protocolVersions ?? [];
    if (versions.length > 0) {
      const usable = versions.find((v) => v === 'v1' || v === 'v2');
      if (usable === undefined) return { problem: 'the runtime does not support a protocol compatible with Inference Graphs' };
      protocol = usable;
    }
  }
  return { protocol };
}

export async function predictorEndpoint(isvc: InferenceService, runtimes: RuntimeLookup): Promise<ServiceUrl> {
  const address = isvc.status?.address?.url;
  const name = isvc.metadata.name!;
  if (!address) return { ok: false, reason: 'InferenceServiceNotReady', message: `service ${name} is not ready` };
  const p = await protocolOf(isvc, runtimes);
  if ('problem' in p) return { ok: false, reason: 'UnsupportedProtocol', message: p.problem };
  const model = modelNameOf(isvc);
  const path = p.protocol === 'v1' ? `/v1/models/${model}:predict` : p.protocol === 'v2' ? `/v2/models/${model}/infer` : '';
  return { ok: true, url: `${address}${path}` };
}

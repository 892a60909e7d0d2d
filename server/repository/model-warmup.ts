/**
 * The one warm-up runner: runs a version's warm-up requests on every instance before the
 * version is READY, whatever wrote them (config.pbtxt's `model_warmup`, warmup-data.ts; TF
 * Serving's `assets.extra/tf_serving_warmup_requests`, tf-serving-warmup.ts): each request
 * `count` times, in the order given, the instances side by side. Warm-up calls go to the
 * backend's instances directly, not through the request pipeline or the batcher, so they
 * count in no metric (Triton's statistics leave warm-up out too). A request that does not
 * fit the model, or that the model fails, fails the load with the request's label and the
 * reason.
 */
import type { ModelInstance } from '../backend/backend.js';
import { selectSignature } from '../../protocols/signature.js';
import type { Tensor } from '../../protocols/tensor.js';
import { validateRequest } from '../validate-request.js';

export interface WarmupRequest {
  /** Names the request in a failure: `model_warmup 'x'`, `warm-up record 3 of ...`. */
  readonly label: string;
  readonly count: number;
  /** Fresh tensors for one run: the instance may detach their buffers. */
  tensors(): Tensor[];
  /** The signature to run, for models with signatures; '' or absent: the default. */
  readonly signature?: string;
  /** Outputs to fetch; absent or empty: all of the signature's (or model's). */
  readonly outputs?: readonly string[];
}

export interface WarmupTarget {
  readonly modelName: string;
  readonly maxBatchSize: number;
  readonly requests: readonly WarmupRequest[];
}

function failed(request: WarmupRequest, e: unknown): Error {
  return new Error(`${request.label} failed: ${(e as Error).message}`, { cause: e });
}

async function run(instance: ModelInstance, request: WarmupRequest, target: WarmupTarget): Promise<void> {
  const signature = instance.signatures === undefined ? undefined : selectSignature(instance.signatures, request.signature);
  const { inputs: inputSpecs, outputs: outputSpecs } = signature ?? instance;
  const inputs = request.tensors();
  if (instance.validatesOwnInputs !== true) validateRequest(target.modelName, { inputs }, inputSpecs, outputSpecs, target.maxBatchSize);
  const wanted = request.outputs ?? [];
  const unknown = wanted.find((o) => !outputSpecs.some((s) => s.name === o));
  if (unknown !== undefined) throw new Error(`output '${unknown}' is not an output of the model; outputs: ${outputSpecs.map((s) => s.name).join(', ')}`);
  await instance.infer(inputs, wanted.length > 0 ? wanted : outputSpecs.map((o) => o.name), signature?.name);
}

export async function warmUp(instances: readonly ModelInstance[], target: WarmupTarget): Promise<void> {
  await Promise.all(
    instances.map(async (instance) => {
      for (const request of target.requests) {
        for (let k = 0; k < request.count; k++) {
          try {
            await run(instance, request, target);
          } catch (e) {
            throw failed(request, e);
          }
        }
      }
    }),
  );
}

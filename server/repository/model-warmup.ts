/**
 * Runs config.pbtxt's `model_warmup` on every instance of a version before the version is
 * READY, as Triton does: each sample `count` times, in the order written, the instances side
 * by side. Warm-up calls go to the backend's instances directly, not through the request
 * pipeline or the batcher, so they count in no metric (Triton's statistics leave warm-up out
 * too). A sample that does not fit the model, or that the model fails, fails the load with
 * the sample's name and the reason.
 */
import type { ModelInstance } from '../backend/backend.js';
import type { WarmupSample } from '../backend/model-config.js';
import { validateRequest } from '../validate-request.js';
import { readSampleFiles, sampleTensors } from './warmup-data.js';

export interface WarmupTarget {
  readonly modelName: string;
  readonly samples: readonly WarmupSample[];
  readonly maxBatchSize: number;
  /** Folders whose `warmup/` may hold input_data_file files, first match wins. */
  readonly folders: readonly string[];
}

function failed(sample: WarmupSample, e: unknown): Error {
  return new Error(`model_warmup '${sample.name}' failed: ${(e as Error).message}`, { cause: e });
}

export async function warmUp(instances: readonly ModelInstance[], target: WarmupTarget): Promise<void> {
  const { modelName, samples, maxBatchSize, folders } = target;
  const files = await Promise.all(samples.map((s) => readSampleFiles(s, folders).catch((e: unknown) => Promise.reject(failed(s, e)))));
  await Promise.all(
    instances.map(async (instance) => {
      const fetches = instance.outputs.map((o) => o.name);
      for (const [k, sample] of samples.entries()) {
        for (let run = 0; run < sample.count; run++) {
          try {
            // Fresh tensors every run: the instance may detach their buffers.
            const inputs = sampleTensors(sample, maxBatchSize, files[k] ?? new Map());
            if (instance.validatesOwnInputs !== true) validateRequest(modelName, { inputs }, instance.inputs, instance.outputs, maxBatchSize);
            await instance.infer(inputs, fetches);
          } catch (e) {
            throw failed(sample, e);
          }
        }
      }
    }),
  );
}

/**
 * Loads the instances of one model version that config.pbtxt's `instance_group` asks for
 * (instance-plan.ts) and serves them as one ModelInstance: the backend's own instance when
 * there is one, an InstancePool (first free instance) when there are several. The operator
 * thread budget (LoadContext.threads) is divided among the instances, so N instances use
 * the threads one would; a model's own `intra_op_thread_count` still applies per instance.
 * Every instance runs the model's `model_warmup`, then, for backends that honour it, TF
 * Serving's warm-up records (tf-serving-warmup.ts), before the version is served
 * (model-warmup.ts). A failed load or warm-up leaves nothing behind: the instances already
 * loaded are unloaded.
 */
import path from 'node:path';
import type { Backend, LoadContext, LoadSpec, ModelInstance } from '../backend/backend.js';
import { InstancePool } from '../instances/instance-pool.js';
import { instancePlan } from './instance-plan.js';
import { warmUp } from './model-warmup.js';
import { tfServingWarmupRequests } from './tf-serving-warmup.js';
import { configWarmupRequests } from './warmup-data.js';

export async function loadVersionInstances(backend: Backend, spec: LoadSpec, options: unknown, context: LoadContext): Promise<{ instance: ModelInstance; count: number }> {
  const plan = instancePlan(backend, spec.config?.instanceGroups);
  const shared: LoadContext = { ...context, threads: Math.max(1, Math.floor(context.threads / plan.length)) };
  const loads = await Promise.allSettled(plan.map((instance) => backend.load({ ...spec, instance }, options, shared)));
  const instances = loads.flatMap((l) => (l.status === 'fulfilled' ? [l.value] : []));
  try {
    const failed = loads.find((l) => l.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
    const samples = spec.config?.warmup ?? [];
    const maxBatchSize = spec.config?.maxBatchSize ?? 0;
    // input_data_file: the version's warmup/ folder, then the model's (where Triton reads it).
    const folders = spec.version === undefined ? [spec.dir] : [spec.dir, path.dirname(spec.dir)];
    const records = backend.tfServingWarmup === true ? await tfServingWarmupRequests(spec.dir) : [];
    const requests = [...(await configWarmupRequests(samples, maxBatchSize, folders)), ...records];
    if (requests.length > 0) {
      await warmUp(instances, { modelName: spec.modelName, maxBatchSize, requests });
      context.logger.info(
        { model: spec.modelName, version: spec.version, samples: samples.map((s) => s.name), records: records.length, instances: instances.length },
        'model warm-up done',
      );
    }
  } catch (e) {
    await Promise.allSettled(instances.map((i) => i.unload()));
    throw e;
  }
  const [first] = instances as [ModelInstance];
  return { instance: instances.length === 1 ? first : new InstancePool(instances, spec.modelName), count: instances.length };
}

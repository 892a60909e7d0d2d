/**
 * A `--model_module` in worker mode: the model lives in its own worker thread
 * (model-worker.ts) and this ModelInstance forwards each hook call to it as a job of the
 * generic worker mechanism (server/workers/worker-session.ts), so blocking JavaScript in its hooks
 * delays only its own requests, never health probes or other models. As inline: a request
 * whose client goes away is cancelled (dropped if its hooks have not started, its
 * `request.signal` aborted if they have), and the predictor health check is polled, as a
 * job. Tensors are copied to the worker; outputs, response headers and parameters come
 * back. If the thread dies, pending requests answer 503 and the repository is told
 * (onFailure), which loads the model again.
 */
import { errors } from '../../../protocols/errors.js';
import type { Tensor } from '../../../protocols/tensor.js';
import type { InferContext, ModelInstance, ProvidedModel } from '../../backend/backend.js';
import { spawnWorker } from '../../workers/worker-entry.js';
import { WorkerSession } from '../../workers/worker-session.js';
import { HealthPoll } from './health-poll.js';
import { SDK_PLATFORM } from './model-adapter.js';
import type { JobContext, ModelAnswer, ModelJob, ModelLoaded, ModelWorkerInit } from './model-jobs.js';
import type { ModelFactoryOptions } from './model.js';

/**
 * Copies of the tensors' elements, moved to the worker: cloning a view would copy its whole
 * (request-body) buffer, and the request keeps its own.
 */
function own(inputs: readonly Tensor[], transfer: ArrayBuffer[]): Tensor[] {
  return inputs.map((t) => {
    const data = Array.isArray(t.data) ? t.data.map((b) => b.slice()) : t.data.slice();
    for (const d of Array.isArray(data) ? data : [data]) transfer.push(d.buffer);
    return { ...t, data };
  });
}

function jobContext(ctx: InferContext | undefined): JobContext {
  return { id: ctx?.id, parameters: ctx?.parameters, headers: { ...(ctx?.headers ?? {}) } };
}

type Answer<K extends ModelAnswer['kind']> = Extract<ModelAnswer, { kind: K }>;

/** The answer of a job of `kind`; another kind is a fault of the worker, never of the request. */
async function answer<K extends ModelAnswer['kind']>(kind: K, pending: Promise<ModelAnswer>): Promise<Answer<K>> {
  const a = await pending;
  if (a.kind !== kind) throw errors.internal(`model worker answered a ${kind} job with ${a.kind}`);
  return a as Answer<K>;
}

/** `preloads`: the main thread's `--import` modules, imported in the worker first (worker-entry.ts). */
export function workerModel(file: string, options: ModelFactoryOptions, preloads: readonly string[]): ProvidedModel {
  return {
    async load(context): Promise<ModelInstance> {
      const init: ModelWorkerInit = { file, options, logLevel: context.logger.level };
      const worker = spawnWorker(import.meta.url, 'model-worker', { workerData: init, name: `custom:${options.name}` }, preloads);
      const session = new WorkerSession<ModelJob, ModelAnswer>(worker, {
        label: 'model',
        modelName: options.name,
        logger: context.logger,
        // The repository loads the model again: a 503 to retry, as while it loads.
        gone: (cause) => errors.modelNotReady(options.name, cause.message),
      });
      const loaded = await session.ready((l: ModelLoaded) => l);
      const health = loaded.healthCheck ? HealthPoll.start(options.name, async () => (await answer('health', session.run({ kind: 'health' }))).healthy, context.logger) : undefined;
      return {
        platform: SDK_PLATFORM,
        inputs: loaded.inputs,
        outputs: loaded.outputs,
        validatesOwnInputs: loaded.inputs.length === 0,
        async infer(inputs: readonly Tensor[], outputNames: readonly string[], _signature?: string, ctx?: InferContext): Promise<Tensor[]> {
          const transfer: ArrayBuffer[] = [];
          const job: ModelJob = { kind: 'infer', inputs: own(inputs, transfer), outputNames, context: jobContext(ctx) };
          const a = await answer('infer', session.run(job, transfer, ctx?.signal));
          if (ctx !== undefined) {
            Object.assign(ctx.responseHeaders, a.responseHeaders);
            if (a.parameters !== undefined) ctx.responseParameters = a.parameters;
          }
          return a.outputs;
        },
        async explain(inputs: readonly Tensor[], ctx: InferContext): Promise<unknown> {
          const transfer: ArrayBuffer[] = [];
          return (await answer('explain', session.run({ kind: 'explain', inputs: own(inputs, transfer), context: jobContext(ctx) }, transfer, ctx.signal))).document;
        },
        ...(health === undefined ? {} : { healthy: () => health.healthy }),
        unload: () => {
          health?.stop();
          return session.unload();
        },
        onFailure: (listener) => session.onFailure(listener),
      };
    },
  };
}

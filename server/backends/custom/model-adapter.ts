/**
 * Serves an SDK Model as a ModelInstance, so the repository, the data plane and the
 * transports treat it as any file-backed model (they never see the SDK).
 *
 * - Errors: catalogue errors (the SDK's classes) pass through with their kind; anything else
 *   a hook throws becomes InferenceError (500 / INTERNAL) "Model <name> failed: <Type> :
 *   <message>", logged with its stack here and sent without it; both bounded (error-text.ts).
 * - Faults a hook leaves behind: each hook runs as the model's (process-faults.ts), so a
 *   callback it started that throws later fails this instance (`onFailure`) and the
 *   repository reloads it, as when a model worker thread dies.
 * - Outputs: filtered to and ordered as the request asked (all when it asked for none); a
 *   requested output the model did not return is an InferenceError naming it.
 * - Reload: the model object is shared across reloads of a provided model, so only the
 *   latest adapter's `unload` reaches `Model.unload`.
 */
import type { Logger } from 'pino';
import { KServeError, errors, isErrorKind, withoutSourcePaths } from '../../../protocols/errors.js';
import type { Tensor } from '../../../protocols/tensor.js';
import type { InferContext, ModelInstance, ProvidedModel } from '../../backend/backend.js';
import { thrownText } from '../../error-text.js';
import { type FaultOwner, runAsModel } from '../../process-faults.js';
import { HealthPoll } from './health-poll.js';
import { InferRequest, type InferResponse } from './infer-request.js';
import { InferInput } from './infer-tensor.js';
import type { Model } from './model.js';

/** Platform reported in V2 metadata and kserve_model_info for SDK models. */
export const SDK_PLATFORM = 'kserve-ts_custom';

const current = new WeakMap<Model, ModelInstance>();

/** A user hook's failure as a catalogue error naming the model; the stack stays in the log. */
export function userError(model: string, err: unknown, logger: Logger): KServeError {
  const text = thrownText(err);
  if (err instanceof KServeError) return err.message === text.message ? err : new KServeError(err.kind, text.message);
  // By shape too: a module that imports its own copy of this package throws that copy's classes.
  const kind = (err as { kind?: unknown } | null)?.kind;
  if (err instanceof Error && isErrorKind(kind) && typeof (err as { httpStatus?: unknown }).httpStatus === 'number') return new KServeError(kind, text.message);
  // The bounded text, not the value: its message may be any length and its stack repeats it.
  logger.error({ model, err: text }, 'custom model hook failed');
  return errors.inferenceError(`Model ${model} failed: ${text.type} : ${withoutSourcePaths(text.message)}`);
}

function pick(model: string, outputs: Tensor[], names: readonly string[]): Tensor[] {
  if (names.length === 0) return outputs;
  return names.map((n) => {
    const t = outputs.find((o) => o.name === n);
    if (t === undefined) throw errors.inferenceError(`Model ${model} returned no output '${n}'; it returned [${outputs.map((o) => o.name).join(', ')}]`);
    return t;
  });
}

/** An explain result as the response document: an InferResponse as V2-style JSON outputs, anything else as is. */
function explanationDocument(value: InferResponse | Record<string, unknown>): unknown {
  const result = value as InferResponse;
  // By shape, not instanceof: the model's module may import its own copy of this package.
  if (typeof (value as Partial<InferResponse>).tensors !== 'function') return value;
  const outputs = result.outputs.map((o) => ({
    name: o.name,
    shape: o.shape,
    datatype: o.datatype,
    data: o.asArray().map((v) => (typeof v === 'bigint' ? Number(v) : v)),
  }));
  return { model_name: result.modelName, id: result.id ?? null, outputs };
}

/** A loaded model as an instance, and its health hook run as the model's (for HealthPoll). */
export interface OpenedModel {
  readonly instance: ModelInstance;
  readonly probeHealth: () => Promise<boolean>;
  /** The model asks for the predictor health check (--enable_predictor_health_check). */
  readonly healthCheck: boolean;
}

/**
 * Runs `model.load()` and wraps the loaded model, wherever it lives: the main thread
 * (`loadModel`) or its worker thread (model-worker.ts). Rejects when load throws or leaves
 * it not ready.
 */
export async function openModel(model: Model, logger: Logger): Promise<OpenedModel> {
  const name = model.name;
  // Faults a hook leaves behind (a callback that throws later) fail this instance: process-faults.ts.
  const failureListeners: ((err: Error) => void)[] = [];
  const owner: FaultOwner = { model: name, fail: (err) => failureListeners.forEach((l) => l(err)) };
  let result: boolean | void;
  try {
    result = await runAsModel(owner, () => model.load());
  } catch (err) {
    throw userError(name, err, logger);
  }
  if (result === true) model.ready = true;
  if (result === false || !model.ready) throw errors.modelNotReady(name, 'load() finished but the model is not ready (return true or set this.ready = true)');
  const inputs = model.getInputTypes();
  const outputs = model.getOutputTypes();
  const instance: ModelInstance = {
    platform: SDK_PLATFORM,
    inputs,
    outputs,
    validatesOwnInputs: inputs.length === 0,
    async infer(tensors: readonly Tensor[], outputNames: readonly string[], _signature?: string, context?: InferContext): Promise<Tensor[]> {
      if (!model.ready) throw errors.modelNotReady(name);
      const headers = context?.headers ?? {};
      const responseHeaders = context?.responseHeaders ?? {};
      const request = new InferRequest(
        name,
        tensors.map((t) => InferInput.fromTensor(t)),
        {
          id: context?.id,
          parameters: context?.parameters,
          requestOutputs: outputNames.map((n) => ({ name: n })),
          signal: context?.signal,
        },
      );
      let out: Tensor[];
      try {
        const post = await runAsModel(owner, async () => {
          const pre = await model.preprocess(request, headers);
          // A request preprocess built anew still belongs to the same client.
          if (pre.signal === undefined) pre.signal = request.signal;
          const predicted = await model.predict(pre, headers, responseHeaders);
          return model.postprocess(predicted, headers, responseHeaders);
        });
        out = post.tensors();
        if (context !== undefined && post.parameters !== undefined) context.responseParameters = post.parameters;
      } catch (err) {
        throw userError(name, err, logger);
      }
      return pick(name, out, outputNames);
    },
    async explain(tensors: readonly Tensor[], context: InferContext): Promise<unknown> {
      if (!model.ready) throw errors.modelNotReady(name);
      const request = new InferRequest(
        name,
        tensors.map((t) => InferInput.fromTensor(t)),
        { id: context.id, parameters: context.parameters },
      );
      try {
        return explanationDocument(await runAsModel(owner, () => model.explain(request, context.headers)));
      } catch (err) {
        throw userError(name, err, logger);
      }
    },
    async unload(): Promise<void> {
      if (current.get(model) !== instance) return;
      current.delete(model);
      try {
        await model.unload();
      } catch (err) {
        logger.warn({ model: name, err }, 'custom model unload failed');
      }
    },
    onFailure(listener: (err: Error) => void): void {
      failureListeners.push(listener);
    },
  };
  current.set(model, instance);
  return { instance, probeHealth: () => runAsModel(owner, () => model.healthy()), healthCheck: model.predictorConfig?.healthCheck === true };
}

/** `openModel` on the main thread, with the predictor health check polled when the model asks for it. */
export async function loadModel(model: Model, logger: Logger): Promise<ModelInstance> {
  const { instance, probeHealth, healthCheck } = await openModel(model, logger);
  if (!healthCheck) return instance;
  const health = HealthPoll.start(model.name, probeHealth, logger);
  return {
    ...instance,
    healthy: () => model.ready && health.healthy,
    unload: () => {
      health.stop();
      return instance.unload();
    },
  };
}

/** A model object as a ProvidedModel: each (re)load runs its `load()` again. */
export function providedModel(model: Model): ProvidedModel {
  return { load: (context) => loadModel(model, context.logger) };
}

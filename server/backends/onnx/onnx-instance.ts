/**
 * A loaded ONNX model instance (one per version, or one of its instance group): one worker
 * thread owning one onnxruntime session. Requests
 * are posted to the worker with their tensor buffers transferred (or copied once when a
 * buffer is shared with other data); results come back the same way. Tiny models also get
 * a main-thread session for small requests (onnx-inline.ts).
 *
 * If the worker dies, every pending request fails with an internal error and later calls
 * fail fast; the repository reports the model as failed on its next readiness check.
 */
import { type NumericArray, type TensorData, isDatatype } from '../../../protocols/datatypes.js';
import { errors, runtimeError } from '../../../protocols/errors.js';
import type { Tensor, TensorSpec } from '../../../protocols/tensor.js';
import type { InferContext, LoadContext, LoadSpec, ModelInstance } from '../../backend/backend.js';
import { spawnWorker } from '../../workers/worker-entry.js';
import { WorkerSession, transferInput } from '../../workers/worker-session.js';
import type { OnnxJob, OnnxLoaded, SessionSettings, WireTensor, WireValueInfo } from './onnx-messages.js';
import { type InlinePlan, planInline } from './onnx-inline.js';
import { cudaProviderEntry } from './cuda-options.js';
import type { OnnxOptions } from './onnx-options.js';
import { ortFromV2, v2FromOrt } from './onnx-types.js';
import { type SharedDims, checkSharedDims, sharedDims } from './symbolic-dims.js';

const utf8Decoder = new TextDecoder('utf-8', { fatal: true });

/** onnxruntime string tensors hold text: refuse bytes that are not UTF-8 rather than mangle them. */
function utf8Text(input: string, bytes: Uint8Array, index: number): string {
  try {
    return utf8Decoder.decode(bytes);
  } catch {
    throw errors.invalidInput(`input '${input}': BYTES element ${index} is not valid UTF-8; ONNX string tensors carry UTF-8 text only`);
  }
}
const utf8Encoder = new TextEncoder();

function toSpec(info: WireValueInfo, modelName: string): TensorSpec {
  const datatype = info.type === undefined ? undefined : v2FromOrt(info.type);
  if (datatype === undefined || !isDatatype(datatype)) {
    throw new Error(`model ${modelName}: '${info.name}' has type ${info.type ?? 'non-tensor'}, which is not supported`);
  }
  return { name: info.name, datatype, shape: info.shape.map((d) => (typeof d === 'number' && d >= 0 ? d : -1)) };
}

/** Prepares feeds for postMessage: transfers buffers the request owns, copies views on shared ones. */
function toWire(inputs: readonly Tensor[]): { feeds: WireTensor[]; transfer: ArrayBuffer[] } {
  const transfer = new Set<ArrayBuffer>();
  const feeds = inputs.map((t): WireTensor => {
    const type = ortFromV2(t.datatype);
    if (Array.isArray(t.data)) return { name: t.name, type, dims: t.shape, data: t.data.map((b, i) => utf8Text(t.name, b, i)) };
    return { name: t.name, type, dims: t.shape, data: transferInput(t.data, transfer) };
  });
  return { feeds, transfer: [...transfer] };
}

function fromWire(t: WireTensor): Tensor {
  const datatype = v2FromOrt(t.type);
  if (datatype === undefined) throw errors.internal(`output '${t.name}' has unsupported type ${t.type}`);
  const data: TensorData = Array.isArray(t.data) ? t.data.map((s) => utf8Encoder.encode(s)) : t.data;
  return { name: t.name, datatype, shape: t.dims, data };
}

function fitsInline(inputs: readonly Tensor[], maxElements: number): boolean {
  let n = 0;
  for (const t of inputs) {
    if (Array.isArray(t.data)) return false;
    n += t.data.length;
  }
  return n <= maxElements;
}

/** Rewrites onnxruntime's terse load errors where we know what they mean. */
function explainLoadError(message: string): string {
  // ONNX TensorProto.DataType 16 is BFLOAT16, which onnxruntime-node has no JS tensor type for.
  if (/Unsupported data type: 16\b/.test(message)) {
    return 'the model has bfloat16 (BF16) inputs or outputs, which onnxruntime-node cannot exchange with JavaScript; export it with FP32 or FP16 tensors';
  }
  return message;
}

export class OnnxInstance implements ModelInstance {
  readonly platform = 'onnxruntime_onnx';
  readonly #session: WorkerSession<OnnxJob, WireTensor[]>;
  /** Set once the background measurement says so; until then every request uses the worker. */
  #inline: InlinePlan | undefined;
  #planning: Promise<void> = Promise.resolve();
  #unloaded = false;
  /** Dimension names several inputs share (symbolic-dims.ts). */
  #shared: SharedDims = new Map();

  private constructor(
    session: WorkerSession<OnnxJob, WireTensor[]>,
    readonly inputs: readonly TensorSpec[],
    readonly outputs: readonly TensorSpec[],
    /** The provider the session was created with first: what it really runs on after any fallback. */
    readonly executionProvider: string,
  ) {
    this.#session = session;
  }

  /** Whether small requests run on the main thread (for logs and tests). */
  get inline(): boolean {
    return this.#inline !== undefined;
  }

  /** Resolves when the inline measurement has finished (tests). */
  inlineSettled(): Promise<void> {
    return this.#planning;
  }

  /**
   * Measures the model for inline execution after it is ready, so cold start never waits
   * for it; requests meanwhile go to the worker.
   */
  #planInline(settings: SessionSettings, spec: LoadSpec, inlineMaxMicros: number, logger: LoadContext['logger']): void {
    this.#planning = planInline(settings, this.inputs, this.outputs, inlineMaxMicros, (job) =>
      // No transfer list: the worker gets copies and the warm-up feeds stay usable.
      this.#session.run(job, []),
    ).then(
      async ({ plan, reason }) => {
        if (plan && this.#unloaded) await plan.runner.close();
        else this.#inline = plan;
        logger.debug({ model: spec.modelName, inline: this.#inline !== undefined, reason }, 'onnx inline execution');
      },
      (e: unknown) => {
        // The worker session serves everything; inline is only an optimisation.
        logger.warn({ model: spec.modelName, err: (e as Error).message }, 'inline session not created; using the worker only');
      },
    );
  }

  /** Starts a worker, loads the session there and resolves once it is ready to run. */
  static async create(spec: LoadSpec, options: OnnxOptions, context: LoadContext, providers: readonly string[]): Promise<OnnxInstance> {
    const index = spec.instance === undefined || spec.instance.count === 1 ? undefined : spec.instance.index;
    // Every line of one instance of several says which (the worker's load warnings too).
    const logger = index === undefined ? context.logger : context.logger.child({ instance: index });
    const settings: SessionSettings = {
      modelPath: spec.file,
      executionProviders: providers,
      cudaProvider: cudaProviderEntry(options.cuda),
      intraOpThreads: options.intraOpThreads ?? context.threads,
      interOpThreads: options.interOpThreads,
    };
    const worker = spawnWorker(import.meta.url, 'onnx-worker', { workerData: settings, name: `onnx:${spec.modelName}${index === undefined ? '' : `#${index}`}` });
    const session = new WorkerSession<OnnxJob, WireTensor[]>(worker, {
      label: 'onnx',
      modelName: spec.modelName,
      logger,
      explainLoadError,
    });
    const { inputs, outputs, executionProvider, shared } = await session.ready((loaded: OnnxLoaded) => {
      const specs = {
        inputs: loaded.inputs.map((i) => toSpec(i, spec.modelName)),
        outputs: loaded.outputs.map((o) => toSpec(o, spec.modelName)),
        executionProvider: loaded.executionProviders[0] ?? 'cpu',
        shared: sharedDims(loaded.inputs),
      };
      // Info, not debug: which provider a model really runs on is what an operator asks first.
      logger.info({ model: spec.modelName, executionProviders: loaded.executionProviders }, 'onnx session ready');
      return specs;
    });
    const instance = new OnnxInstance(session, inputs, outputs, executionProvider);
    instance.#shared = shared;
    instance.#planInline(settings, spec, options.inlineMaxMicros, logger);
    return instance;
  }

  /** ONNX models have no signatures, so there is none to look up. A client gone before its job starts drops it. */
  async infer(inputs: readonly Tensor[], outputNames: readonly string[], _signature?: string, context?: InferContext): Promise<Tensor[]> {
    checkSharedDims(this.#shared, inputs);
    const inline = this.#inline;
    if (inline !== undefined && fitsInline(inputs, inline.maxElements)) {
      const feeds = inputs.map((t): WireTensor => ({ name: t.name, type: ortFromV2(t.datatype), dims: t.shape, data: t.data as NumericArray }));
      // onnxruntime's failure reads as it does from the worker (which the warm-up timing, not
      // the request, decided against): one status and message for one failed request.
      const outputs = await inline.runner
        .run({ feeds, fetches: outputNames }, (d) => d)
        .catch((e: unknown) => {
          throw runtimeError(e);
        });
      return outputs.map(fromWire);
    }
    const { feeds, transfer } = toWire(inputs);
    const outputs = await this.#session.run({ feeds, fetches: outputNames }, transfer, context?.signal);
    return outputs.map(fromWire);
  }

  async unload(): Promise<void> {
    this.#unloaded = true;
    await this.#planning;
    const inline = this.#inline;
    this.#inline = undefined;
    await this.#session.unload();
    await inline?.runner.close();
  }

  onFailure(listener: (err: Error) => void): void {
    this.#session.onFailure(listener);
  }
}

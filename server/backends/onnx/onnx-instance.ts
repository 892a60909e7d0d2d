/**
 * A loaded ONNX model version: one worker thread owning one onnxruntime session. Requests
 * are posted to the worker with their tensor buffers transferred (or copied once when a
 * buffer is shared with other data); results come back the same way.
 *
 * If the worker dies, every pending request fails with an internal error and later calls
 * fail fast; the repository reports the model as failed on its next readiness check.
 */
import type { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import { type TensorData, isDatatype } from '../../../protocols/datatypes.js';
import { errors } from '../../../protocols/errors.js';
import type { Tensor, TensorSpec } from '../../../protocols/tensor.js';
import { isDetachable } from '../../../protocols/buffer-ownership.js';
import type { LoadOptions, LoadSpec, ModelInstance } from '../../backend.js';
import { spawnWorker } from '../../worker-entry.js';
import type { FromWorker, RunJob, SessionSettings, ToWorker, WireTensor, WireValueInfo } from './onnx-messages.js';
import { ortFromV2, v2FromOrt } from './onnx-types.js';

interface Pending {
  resolve(outputs: Tensor[]): void;
  reject(err: Error): void;
}

const utf8Decoder = new TextDecoder('utf-8', { fatal: true });

/** onnxruntime string tensors hold text: refuse bytes that are not UTF-8 rather than mangle them. */
function utf8Text(input: string, bytes: Uint8Array, index: number): string {
  try {
    return utf8Decoder.decode(bytes);
  } catch {
    throw errors.invalidInput(
      `input '${input}': BYTES element ${index} is not valid UTF-8; ONNX string tensors carry UTF-8 text only`,
    );
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
    let data = t.data;
    const buf = data.buffer;
    const whole = data.byteOffset === 0 && data.byteLength === buf.byteLength;
    if (buf instanceof ArrayBuffer && (whole || isDetachable(buf))) transfer.add(buf);
    else if (!(buf instanceof SharedArrayBuffer)) data = data.slice();
    if (data.buffer !== buf) transfer.add(data.buffer as ArrayBuffer);
    return { name: t.name, type, dims: t.shape, data };
  });
  return { feeds, transfer: [...transfer] };
}

function fromWire(t: WireTensor): Tensor {
  const datatype = v2FromOrt(t.type);
  if (datatype === undefined) throw errors.internal(`output '${t.name}' has unsupported type ${t.type}`);
  const data: TensorData = Array.isArray(t.data) ? t.data.map((s) => utf8Encoder.encode(s)) : t.data;
  return { name: t.name, datatype, shape: t.dims, data };
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
  readonly #worker: Worker;
  readonly #pending = new Map<number, Pending>();
  #nextId = 1;
  #dead: Error | undefined;
  #failureListeners: Array<(err: Error) => void> = [];
  #closing = false;
  #batch: RunJob[] = [];
  #batchTransfer: ArrayBuffer[] = [];
  #flushScheduled = false;

  private constructor(
    worker: Worker,
    readonly inputs: readonly TensorSpec[],
    readonly outputs: readonly TensorSpec[],
    logger: Logger,
  ) {
    this.#worker = worker;
    worker.on('message', (msg: FromWorker) => this.#onMessage(msg));
    worker.on('error', (err) => this.#fail(err, logger));
    worker.on('exit', (code) => this.#fail(new Error(`onnx worker exited with code ${code}`), logger));
  }

  /** Starts a worker, loads the session there and resolves once it is ready to run. */
  static async create(spec: LoadSpec, options: LoadOptions, providers: readonly string[]): Promise<OnnxInstance> {
    const settings: SessionSettings = {
      modelPath: spec.file,
      executionProviders: providers,
      intraOpThreads: options.intraOpThreads,
      interOpThreads: options.interOpThreads,
    };
    const worker = spawnWorker(import.meta.url, 'onnx-worker', { workerData: settings, name: `onnx:${spec.modelName}` });
    const loaded = await new Promise<Extract<FromWorker, { op: 'loaded' }>>((resolve, reject) => {
      const onExit = (code: number) => reject(new Error(`onnx worker exited with code ${code} while loading`));
      worker.once('error', reject);
      worker.once('exit', onExit);
      worker.once('message', (msg: FromWorker) => {
        worker.off('error', reject);
        worker.off('exit', onExit);
        if (msg.op === 'loaded') resolve(msg);
        else reject(new Error(msg.op === 'load-failed' ? explainLoadError(msg.message) : `unexpected message ${msg.op}`));
      });
    }).catch(async (e: unknown) => {
      await worker.terminate();
      throw e;
    });
    for (const w of loaded.warnings) options.logger.warn({ model: spec.modelName }, w);
    try {
      const inputs = loaded.inputs.map((i) => toSpec(i, spec.modelName));
      const outputs = loaded.outputs.map((o) => toSpec(o, spec.modelName));
      options.logger.debug({ model: spec.modelName, executionProviders: loaded.executionProviders }, 'onnx session ready');
      return new OnnxInstance(worker, inputs, outputs, options.logger);
    } catch (e) {
      await worker.terminate();
      throw e;
    }
  }

  /** onnxruntime sessions take no per-request options, so `parameters` are not used. */
  infer(inputs: readonly Tensor[], outputNames: readonly string[]): Promise<Tensor[]> {
    if (this.#dead !== undefined) return Promise.reject(errors.internal(`model worker is gone: ${this.#dead.message}`));
    const id = this.#nextId++;
    let wire: ReturnType<typeof toWire>;
    try {
      wire = toWire(inputs);
    } catch (e) {
      return Promise.reject(e);
    }
    const { feeds, transfer } = wire;
    return new Promise<Tensor[]>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#batch.push({ id, feeds, fetches: outputNames });
      for (const b of transfer) this.#batchTransfer.push(b);
      if (!this.#flushScheduled) {
        this.#flushScheduled = true;
        setImmediate(() => this.#flush());
      }
    });
  }

  /** Sends every job queued during this event-loop turn in one message. */
  #flush(): void {
    this.#flushScheduled = false;
    const jobs = this.#batch;
    const transfer = this.#batchTransfer;
    this.#batch = [];
    this.#batchTransfer = [];
    if (jobs.length === 0 || this.#dead !== undefined) return;
    const msg: ToWorker = { op: 'run', jobs };
    this.#worker.postMessage(msg, transfer);
  }

  async unload(): Promise<void> {
    if (this.#dead !== undefined) return;
    this.#flush();
    this.#closing = true;
    const exited = new Promise<void>((resolve) => this.#worker.once('exit', () => resolve()));
    const msg: ToWorker = { op: 'close' };
    this.#worker.postMessage(msg);
    const timer = setTimeout(() => void this.#worker.terminate(), 5000);
    await exited;
    clearTimeout(timer);
  }

  #onMessage(msg: FromWorker): void {
    if (msg.op !== 'results') return;
    for (const r of msg.results) {
      const p = this.#pending.get(r.id);
      if (p === undefined) continue;
      this.#pending.delete(r.id);
      if ('error' in r) p.reject(errors.inferenceError(r.error));
      else {
        try {
          p.resolve(r.outputs.map(fromWire));
        } catch (e) {
          p.reject(e as Error);
        }
      }
    }
  }

  onFailure(listener: (err: Error) => void): void {
    this.#failureListeners.push(listener);
  }

  #fail(err: Error, logger: Logger): void {
    if (this.#dead !== undefined) return;
    this.#dead = err;
    // An exit we asked for (unload) is not a failure.
    if (!this.#closing) for (const l of this.#failureListeners) l(err);
    if (this.#pending.size > 0) logger.error({ err: err.message }, 'onnx worker failed with requests in flight');
    for (const p of this.#pending.values()) p.reject(errors.internal(`model worker failed: ${err.message}`));
    this.#pending.clear();
  }
}

/**
 * A loaded TensorFlow model version: one worker thread owning one engine (native SavedModel
 * or portable TF.js). Requests are posted with their buffers transferred; jobs queued in the
 * same event-loop turn travel in one message, as in the ONNX backend.
 *
 * Signatures: `inputs`/`outputs` describe the default signature (`serving_default`). A
 * request picks another with the `signature_name` parameter; its inputs are checked here
 * against that signature, and a request for "every output" means every output of it.
 */
import type { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import { isDetachable } from '../../../protocols/buffer-ownership.js';
import type { Datatype } from '../../../protocols/datatypes.js';
import { KServeError, errors } from '../../../protocols/errors.js';
import type { Parameters, Tensor, TensorSpec } from '../../../protocols/tensor.js';
import type { ModelInstance } from '../../backend.js';
import { validateRequest } from '../../validate-request.js';
import { spawnWorker } from '../../worker-entry.js';
import type { FromWorker, RunJob, ToWorker, WireSignature, WireSpec, WireTensor, WorkerSettings } from './tf-messages.js';
import { toTfjsValues, v2FromTf } from './tf-types.js';

/** A signature tensor: the V2 view plus TensorFlow's own dtype and graph tensor name. */
export interface TfSignatureTensor extends TensorSpec {
  readonly tfDtype: string;
  readonly tensorName: string;
}

/** One signature def, as TF Serving's metadata reports it. */
export interface TfSignature {
  readonly name: string;
  readonly inputs: readonly TfSignatureTensor[];
  readonly outputs: readonly TfSignatureTensor[];
}

/** The request parameter that selects a signature (V2 parameter, V1 body field). */
export const SIGNATURE_PARAMETER = 'signature_name';

interface Pending {
  resolve(outputs: Tensor[]): void;
  reject(err: Error): void;
}

function toTensorSpec(s: WireSpec, modelName: string): TfSignatureTensor {
  const datatype = v2FromTf(s.dtype);
  if (datatype === undefined) throw new Error(`model ${modelName}: '${s.name}' has type ${s.dtype}, which is not supported`);
  return { name: s.name, datatype, shape: s.shape, tfDtype: s.dtype, tensorName: s.tensor };
}

function toWire(inputs: readonly Tensor[]): { feeds: WireTensor[]; transfer: ArrayBuffer[] } {
  const transfer = new Set<ArrayBuffer>();
  const feeds = inputs.map((t): WireTensor => {
    let data;
    try {
      data = toTfjsValues(t.name, t.datatype, t.data);
    } catch (e) {
      throw errors.invalidInput((e as Error).message);
    }
    if (Array.isArray(data)) return { name: t.name, datatype: t.datatype, dims: t.shape, data };
    if (data !== t.data) {
      transfer.add(data.buffer as ArrayBuffer);
      return { name: t.name, datatype: t.datatype, dims: t.shape, data };
    }
    const buf = data.buffer;
    const whole = data.byteOffset === 0 && data.byteLength === buf.byteLength;
    if (buf instanceof ArrayBuffer && (whole || isDetachable(buf))) transfer.add(buf);
    else if (!(buf instanceof SharedArrayBuffer)) {
      data = data.slice();
      transfer.add(data.buffer as ArrayBuffer);
    }
    return { name: t.name, datatype: t.datatype, dims: t.shape, data };
  });
  return { feeds, transfer: [...transfer] };
}

function sameNames(a: readonly string[], b: readonly TensorSpec[]): boolean {
  return a.length === b.length && a.every((n, i) => n === b[i]?.name);
}

export class TfInstance implements ModelInstance {
  readonly platform: string;
  readonly inputs: readonly TensorSpec[];
  readonly outputs: readonly TensorSpec[];
  /** Every signature, the default first. */
  readonly signatures: readonly TfSignature[];
  readonly #worker: Worker;
  readonly #modelName: string;
  readonly #pending = new Map<number, Pending>();
  #nextId = 1;
  #dead: Error | undefined;
  #failureListeners: Array<(err: Error) => void> = [];
  #closing = false;
  #batch: RunJob[] = [];
  #batchTransfer: ArrayBuffer[] = [];
  #flushScheduled = false;

  private constructor(worker: Worker, platform: string, signatures: readonly TfSignature[], modelName: string, logger: Logger) {
    const first = signatures[0] as TfSignature;
    this.platform = platform;
    this.signatures = signatures;
    // Plain specs: V2 metadata serialises these as they are.
    const plain = (t: TfSignatureTensor): TensorSpec => ({ name: t.name, datatype: t.datatype, shape: t.shape });
    this.inputs = first.inputs.map(plain);
    this.outputs = first.outputs.map(plain);
    this.#worker = worker;
    this.#modelName = modelName;
    worker.on('message', (msg: FromWorker) => this.#onMessage(msg));
    worker.on('error', (err) => this.#fail(err, logger));
    worker.on('exit', (code) => this.#fail(new Error(`tensorflow worker exited with code ${code}`), logger));
  }

  /** Starts a worker, loads the model there and resolves once it is ready to run. */
  static async create(
    settings: WorkerSettings,
    platform: string,
    modelName: string,
    logger: Logger,
  ): Promise<{ instance: TfInstance; backend: string }> {
    const worker = spawnWorker(import.meta.url, 'tf-worker', { workerData: settings, name: `tensorflow:${modelName}` });
    const loaded = await new Promise<Extract<FromWorker, { op: 'loaded' }>>((resolve, reject) => {
      const onExit = (code: number) => reject(new Error(`tensorflow worker exited with code ${code} while loading`));
      worker.once('error', reject);
      worker.once('exit', onExit);
      worker.once('message', (msg: FromWorker) => {
        worker.off('error', reject);
        worker.off('exit', onExit);
        if (msg.op === 'loaded') resolve(msg);
        else reject(new Error(msg.op === 'load-failed' ? msg.message : `unexpected message ${msg.op}`));
      });
    }).catch(async (e: unknown) => {
      await worker.terminate();
      throw e;
    });
    for (const w of loaded.warnings) logger.warn({ model: modelName }, w);
    try {
      const signatures = loaded.signatures.map((s: WireSignature) => ({
        name: s.name,
        inputs: s.inputs.map((i) => toTensorSpec(i, modelName)),
        outputs: s.outputs.map((o) => toTensorSpec(o, modelName)),
      }));
      return { instance: new TfInstance(worker, platform, signatures, modelName, logger), backend: loaded.backend };
    } catch (e) {
      await worker.terminate();
      throw e;
    }
  }

  #signature(parameters: Parameters | undefined): TfSignature {
    const wanted = parameters?.[SIGNATURE_PARAMETER];
    if (wanted === undefined || wanted === '') return this.signatures[0] as TfSignature;
    if (typeof wanted !== 'string') throw errors.invalidInput(`parameter '${SIGNATURE_PARAMETER}' must be a string`);
    const sig = this.signatures.find((s) => s.name === wanted);
    if (sig === undefined) {
      throw errors.invalidInput(
        `Serving signature name: "${wanted}" not found in signature def; signatures: ${this.signatures.map((s) => s.name).join(', ')}`,
      );
    }
    return sig;
  }

  /**
   * Resolves the signature and the outputs to fetch. Validation of the default signature's
   * inputs happened before the call (the data plane); other signatures are validated here.
   */
  plan(inputs: readonly Tensor[], outputNames: readonly string[], parameters?: Parameters): { sig: TfSignature; fetches: TensorSpec[] } {
    const sig = this.#signature(parameters);
    if (sig === this.signatures[0]) {
      return { sig, fetches: outputNames.map((n) => sig.outputs.find((o) => o.name === n) as TensorSpec) };
    }
    validateRequest(this.#modelName, { inputs }, sig.inputs, sig.outputs, 0);
    const names = sameNames(outputNames, this.outputs) ? sig.outputs.map((o) => o.name) : outputNames;
    const fetches = names.map((n) => {
      const o = sig.outputs.find((s) => s.name === n);
      if (o === undefined) {
        throw errors.invalidInput(`signature '${sig.name}' has no output '${n}'; outputs: ${sig.outputs.map((s) => s.name).join(', ')}`);
      }
      return o;
    });
    return { sig, fetches };
  }

  infer(inputs: readonly Tensor[], outputNames: readonly string[], parameters?: Parameters): Promise<Tensor[]> {
    if (this.#dead !== undefined) return Promise.reject(errors.internal(`model worker is gone: ${this.#dead.message}`));
    let job: Omit<RunJob, 'id'>;
    let transfer: ArrayBuffer[];
    try {
      const { sig, fetches } = this.plan(inputs, outputNames, parameters);
      const wire = toWire(inputs);
      transfer = wire.transfer;
      job = {
        signature: sig.name,
        feeds: wire.feeds,
        fetches: fetches.map((f) => f.name),
        fetchTypes: fetches.map((f): Datatype => f.datatype),
      };
    } catch (e) {
      return Promise.reject(e instanceof KServeError ? e : errors.invalidInput((e as Error).message));
    }
    const id = this.#nextId++;
    return new Promise<Tensor[]>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#batch.push({ id, ...job });
      for (const b of transfer) this.#batchTransfer.push(b);
      if (!this.#flushScheduled) {
        this.#flushScheduled = true;
        setImmediate(() => this.#flush());
      }
    });
  }

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
      else p.resolve(r.outputs.map((t) => ({ name: t.name, datatype: t.datatype, shape: t.dims, data: t.data })));
    }
  }

  onFailure(listener: (err: Error) => void): void {
    this.#failureListeners.push(listener);
  }

  #fail(err: Error, logger: Logger): void {
    if (this.#dead !== undefined) return;
    this.#dead = err;
    if (!this.#closing) for (const l of this.#failureListeners) l(err);
    if (this.#pending.size > 0) logger.error({ err: err.message }, 'tensorflow worker failed with requests in flight');
    for (const p of this.#pending.values()) p.reject(errors.internal(`model worker failed: ${err.message}`));
    this.#pending.clear();
  }
}

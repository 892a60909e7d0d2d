/**
 * A loaded TensorFlow model version: one worker thread owning one engine (native SavedModel
 * or portable TF.js), driven through server/workers/worker-session.ts as the ONNX backend is.
 *
 * Signatures: `inputs`/`outputs` describe the default signature (`serving_default`) and
 * `signatures` lists them all, the default first. A request picks one with the
 * `signature_name` parameter; the request's scope resolves it once and validates the request
 * against it, and this instance runs the signature it is handed by name.
 */
import type { Logger } from 'pino';
import type { Datatype } from '../../../protocols/datatypes.js';
import { KServeError, errors } from '../../../protocols/errors.js';
import type { SignatureDef, SignatureTensor, Tensor, TensorSpec } from '../../../protocols/tensor.js';
import type { InferContext, ModelInstance } from '../../backend/backend.js';
import { spawnWorker } from '../../workers/worker-entry.js';
import { WorkerSession, transferInput } from '../../workers/worker-session.js';
import type { TfJob, TfLoaded, WireSpec, WireTensor, WorkerSettings } from './tf-messages.js';
import { toTfjsValues, v2FromTf } from './tf-types.js';

/** A signature tensor: the V2 view plus TensorFlow's own dtype and graph tensor name. */
export interface TfSignatureTensor extends SignatureTensor {
  readonly tfDtype: string;
  readonly tensorName: string;
}

/** One signature def, as TF Serving's metadata reports it. */
export interface TfSignature extends SignatureDef {
  readonly inputs: readonly TfSignatureTensor[];
  readonly outputs: readonly TfSignatureTensor[];
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
    // A converted array is a fresh one the request owns whole, so it is transferred.
    return { name: t.name, datatype: t.datatype, dims: t.shape, data: Array.isArray(data) ? data : transferInput(data, transfer) };
  });
  return { feeds, transfer: [...transfer] };
}

export class TfInstance implements ModelInstance {
  readonly platform: string;
  /** SavedModels run on libtensorflow's CPU kernels, TF.js graph models on WASM. */
  readonly executionProvider: string;
  readonly inputs: readonly TensorSpec[];
  readonly outputs: readonly TensorSpec[];
  /** Every signature, the default first. */
  readonly signatures: readonly TfSignature[];
  readonly #byName: ReadonlyMap<string, TfSignature>;
  readonly #session: WorkerSession<TfJob, WireTensor[]>;

  private constructor(session: WorkerSession<TfJob, WireTensor[]>, platform: string, signatures: readonly TfSignature[]) {
    const first = signatures[0] as TfSignature;
    this.platform = platform;
    this.executionProvider = platform === 'tensorflow_tfjs' ? 'wasm' : 'cpu'; // PLATFORMS.portable (tf-backend.ts imports this file)
    this.signatures = signatures;
    this.#byName = new Map(signatures.map((sig) => [sig.name, sig]));
    // Plain specs: V2 metadata serialises these as they are.
    const plain = (t: TfSignatureTensor): TensorSpec => ({ name: t.name, datatype: t.datatype, shape: t.shape });
    this.inputs = first.inputs.map(plain);
    this.outputs = first.outputs.map(plain);
    this.#session = session;
  }

  /** Starts a worker, loads the model there and resolves once it is ready to run. */
  static async create(settings: WorkerSettings, platform: string, modelName: string, logger: Logger): Promise<{ instance: TfInstance; backend: string }> {
    const worker = spawnWorker(import.meta.url, 'tf-worker', { workerData: settings, name: `tensorflow:${modelName}` });
    const session = new WorkerSession<TfJob, WireTensor[]>(worker, { label: 'tensorflow', modelName, logger });
    const { signatures, backend } = await session.ready((loaded: TfLoaded) => ({
      backend: loaded.backend,
      signatures: loaded.signatures.map((s): TfSignature => ({
        name: s.name,
        inputs: s.inputs.map((i) => toTensorSpec(i, modelName)),
        outputs: s.outputs.map((o) => toTensorSpec(o, modelName)),
      })),
    }));
    return { instance: new TfInstance(session, platform, signatures), backend };
  }

  /** The job for one request: the selected signature, its feeds and the outputs to fetch. */
  #job(inputs: readonly Tensor[], outputNames: readonly string[], signature: string | undefined): { job: TfJob; transfer: ArrayBuffer[] } {
    const sig = signature === undefined ? (this.signatures[0] as TfSignature) : this.#byName.get(signature);
    if (sig === undefined) throw errors.invalidInput(`no signature '${signature}'; signatures: ${[...this.#byName.keys()].join(', ')}`);
    const fetches = outputNames.map((n) => {
      const o = sig.outputs.find((s) => s.name === n);
      if (o === undefined) {
        throw errors.invalidInput(`signature '${sig.name}' has no output '${n}'; outputs: ${sig.outputs.map((s) => s.name).join(', ')}`);
      }
      return o;
    });
    const { feeds, transfer } = toWire(inputs);
    const job: TfJob = { signature: sig.name, feeds, fetches: fetches.map((f) => f.name), fetchTypes: fetches.map((f): Datatype => f.datatype) };
    return { job, transfer };
  }

  async infer(inputs: readonly Tensor[], outputNames: readonly string[], signature?: string, context?: InferContext): Promise<Tensor[]> {
    let planned: { job: TfJob; transfer: ArrayBuffer[] };
    try {
      planned = this.#job(inputs, outputNames, signature);
    } catch (e) {
      throw e instanceof KServeError ? e : errors.invalidInput((e as Error).message);
    }
    const outputs = await this.#session.run(planned.job, planned.transfer, context?.signal);
    return outputs.map((t) => ({ name: t.name, datatype: t.datatype, shape: t.dims, data: t.data }));
  }

  unload(): Promise<void> {
    return this.#session.unload();
  }

  onFailure(listener: (err: Error) => void): void {
    this.#session.onFailure(listener);
  }
}

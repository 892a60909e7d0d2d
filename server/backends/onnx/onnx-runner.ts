/**
 * One onnxruntime InferenceSession and how to run a job on it, independent of the thread it
 * lives on: the session worker (onnx-worker.ts) uses it for every model, and the main
 * thread uses it for models small enough to run inline (onnx-inline.ts).
 *
 * Threading: onnxruntime-node creates sessions and runs them synchronously on the calling
 * thread (its `run` is a setImmediate around a blocking call).
 */
import ort from 'onnxruntime-node';
import { fallbackWarning, providerFailureReason, providerLoadError } from './execution-providers.js';
import type { OnnxJob, OnnxLoaded, SessionSettings, WireTensor, WireValueInfo } from './onnx-messages.js';
import { quietNativeLog } from './native-log.js';

/*
 * FP16 is its bit patterns (Uint16Array) everywhere in the server. Where the global
 * Float16Array exists (Node 24), onnxruntime-common turns float16 data into one: its Tensor
 * makes a Uint16Array a Float16Array view, which onnxruntime-node's binding reads as zero
 * bytes ("not enough space: expected 12, got 0"; microsoft/onnxruntime#32323), and outputs
 * come back as Float16Array. So a float16 feed is the plain value the binding reads, and a
 * float16 output's bytes are viewed as Uint16Array.
 */
function feed(t: WireTensor): ort.Tensor {
  if (t.type === 'float16') return { type: t.type, dims: t.dims, data: t.data, location: 'cpu' } as unknown as ort.Tensor;
  return new ort.Tensor(t.type as ort.Tensor.Type, t.data, t.dims);
}

function float16Bits(type: ort.Tensor.Type, data: ort.Tensor.DataType): ort.Tensor.DataType {
  if (type !== 'float16' || data instanceof Uint16Array || Array.isArray(data)) return data;
  return new Uint16Array(data.buffer, data.byteOffset, data.length);
}

function valueInfo(meta: readonly ort.InferenceSession.ValueMetadata[]): WireValueInfo[] {
  return meta.map((m) =>
    m.isTensor ? { name: m.name, type: m.type, shape: m.shape.map((d) => (typeof d === 'number' ? d : String(d))) } : { name: m.name, type: undefined, shape: [] },
  );
}

export interface OnnxRunner {
  readonly loaded: OnnxLoaded;
  /** Runs one job; output buffers go through `keep` (the worker transfers them, inline keeps them). */
  run(job: OnnxJob, keep: (data: Exclude<WireTensor['data'], string[]>) => WireTensor['data']): Promise<WireTensor[]>;
  close(): Promise<void>;
}

/** The options onnxruntime receives for a session on `providers` (the cuda entry carries its provider options). */
export function sessionOptions(settings: SessionSettings, providers: readonly string[]): ort.InferenceSession.SessionOptions {
  return {
    executionProviders: providers.map((p) => (p === 'cuda' ? settings.cudaProvider : p)),
    intraOpNumThreads: settings.intraOpThreads,
    interOpNumThreads: settings.interOpThreads,
    graphOptimizationLevel: 'all',
    ...quietNativeLog(),
  };
}

/**
 * Creates the session with the model's providers, as onnxruntime loads them. onnxruntime
 * does not fall back by itself (a CUDA failure throws even with cpu listed), so when the
 * list has cpu after a provider that failed, the session is created again on the cpu with
 * one warning carrying onnxruntime's reason; a list without cpu fails the load with it.
 */
export async function createRunner(settings: SessionSettings, warnings: string[]): Promise<OnnxRunner> {
  const options = (providers: readonly string[]) => sessionOptions(settings, providers);
  const wanted = settings.executionProviders;
  let session: ort.InferenceSession;
  let providers = wanted;
  try {
    session = await ort.InferenceSession.create(settings.modelPath, options(wanted));
  } catch (e) {
    const accelerator = wanted.find((p) => p !== 'cpu');
    if (accelerator === undefined) throw e;
    const reason = providerFailureReason((e as Error).message);
    // Only fall back along the list the model asked for: a cuda-only model must not run on cpu.
    if (!wanted.includes('cpu')) throw providerLoadError(wanted, accelerator, reason);
    warnings.push(fallbackWarning(accelerator, reason));
    session = await ort.InferenceSession.create(settings.modelPath, options(['cpu']));
    providers = ['cpu'];
  }
  return {
    loaded: { inputs: valueInfo(session.inputMetadata), outputs: valueInfo(session.outputMetadata), executionProviders: providers },
    run: async (job, keep) => {
      const feeds: Record<string, ort.Tensor> = {};
      for (const t of job.feeds) feeds[t.name] = feed(t);
      const result = await session.run(feeds, job.fetches as string[]);
      const outputs: WireTensor[] = [];
      for (const name of job.fetches) {
        const value = result[name];
        if (value === undefined) throw new Error(`model produced no output '${name}'`);
        const data = float16Bits(value.type, value.data);
        outputs.push({ name, type: value.type, dims: value.dims, data: Array.isArray(data) ? data : keep(data) });
      }
      return outputs;
    },
    close: () => session.release(),
  };
}

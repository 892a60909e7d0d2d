/**
 * Worker-thread entry owning one TensorFlow model (native or portable engine). TF.js runs
 * kernels synchronously on the calling thread, so they live here and the main thread's event
 * loop stays free. The job loop is server/workers/worker-loop.ts.
 */
import { workerData } from 'node:worker_threads';
import { serveJobs, transferOutput } from '../../workers/worker-loop.js';
import type { Engine, TfTensor } from './tf-engine.js';
import type { TfJob, TfLoaded, WireTensor, WorkerSettings } from './tf-messages.js';
import { fromTfjsValues, tfjsDtypeOf, toTfjsValues } from './tf-types.js';

const settings = workerData as WorkerSettings;

async function load(warnings: string[]): Promise<Engine> {
  if (settings.path === 'native') return (await import('./tf-native.js')).loadNative(settings, warnings);
  return (await import('./tf-portable.js')).loadPortable(settings, warnings);
}

/** The job names the signature the main thread resolved; the worker only looks it up. */
async function run(engine: Engine, signatures: ReadonlyMap<string, Engine['signatures'][number]>, job: TfJob, transfer: Set<ArrayBuffer>): Promise<WireTensor[]> {
  const { tf } = engine;
  const sig = signatures.get(job.signature);
  if (sig === undefined) throw new Error(`no signature '${job.signature}'`);
  const feeds: Record<string, TfTensor> = {};
  let outs: TfTensor[] = [];
  try {
    for (const t of job.feeds) {
      const dtype = tfjsDtypeOf(t.datatype);
      if (dtype === undefined) throw new Error(`input '${t.name}': ${t.datatype} is not supported by TensorFlow.js`);
      feeds[t.name] = tf.tensor(toTfjsValues(t.name, t.datatype, t.data), [...t.dims], dtype);
    }
    outs = await engine.run(sig, feeds, job.fetches);
    const outputs: WireTensor[] = [];
    for (let i = 0; i < outs.length; i++) {
      const t = outs[i] as TfTensor;
      const datatype = job.fetchTypes[i] ?? 'FP32';
      const values = t.dtype === 'string' ? ((await t.bytes()) as Uint8Array[]) : await t.data<'float32' | 'int32' | 'bool'>();
      const data = fromTfjsValues(datatype, values);
      // Copied when the typed array is a view on memory the backend keeps (e.g. the WASM heap).
      outputs.push({ name: job.fetches[i] as string, datatype, dims: t.shape, data: Array.isArray(data) ? data : transferOutput(data, transfer) });
    }
    return outputs;
  } finally {
    tf.dispose([...Object.values(feeds), ...outs]);
  }
}

void serveJobs<TfLoaded, TfJob, WireTensor[]>(async (warnings) => {
  const engine = await load(warnings);
  const signatures = new Map(engine.signatures.map((s) => [s.name, s]));
  return {
    loaded: { signatures: [...engine.signatures], backend: engine.backend },
    runner: { run: (job, transfer) => run(engine, signatures, job, transfer), close: () => engine.dispose() },
  };
});

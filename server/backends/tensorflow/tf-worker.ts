/**
 * Worker-thread entry owning one TensorFlow model (native or portable engine). TF.js runs
 * kernels synchronously on the calling thread, so they live here and the main thread's event
 * loop stays free. Jobs run one at a time in arrival order; results come back in batches.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { Engine, TfTensor } from './tf-engine.js';
import type { FromWorker, JobResult, RunJob, ToWorker, WireTensor, WorkerSettings } from './tf-messages.js';
import { fromTfjsValues, tfjsDtypeOf, toTfjsValues } from './tf-types.js';

const settings = workerData as WorkerSettings;
const port = parentPort;
if (port === null) throw new Error('tf-worker must run in a worker thread');

function post(msg: FromWorker, transfer: ArrayBuffer[] = []): void {
  port?.postMessage(msg, transfer);
}

async function load(warnings: string[]): Promise<Engine> {
  if (settings.path === 'native') return (await import('./tf-native.js')).loadNative(settings, warnings);
  return (await import('./tf-portable.js')).loadPortable(settings, warnings);
}

async function main(): Promise<void> {
  let engine: Engine;
  const warnings: string[] = [];
  try {
    engine = await load(warnings);
    post({ op: 'loaded', signatures: [...engine.signatures], backend: engine.backend, warnings });
  } catch (e) {
    post({ op: 'load-failed', message: (e as Error).message });
    return;
  }
  let queue: Promise<void> = Promise.resolve();
  port?.on('message', (msg: ToWorker) => {
    if (msg.op === 'close') {
      queue = queue.then(() => engine.dispose()).finally(() => port.close());
      return;
    }
    queue = queue.then(() => runJobs(engine, msg.jobs));
  });
}

/** Results are flushed when the batch is done, or sooner once a batch has run this long (ms). */
const FLUSH_AFTER_MS = 2;

async function runJobs(engine: Engine, jobs: readonly RunJob[]): Promise<void> {
  let results: JobResult[] = [];
  let transfer = new Set<ArrayBuffer>();
  let since = performance.now();
  const flush = () => {
    try {
      post({ op: 'results', results }, [...transfer]);
    } catch (e) {
      post({ op: 'results', results: results.map((r) => ({ id: r.id, error: `cannot return outputs: ${(e as Error).message}` })) });
    }
    results = [];
    transfer = new Set();
    since = performance.now();
  };
  for (const job of jobs) {
    try {
      results.push({ id: job.id, outputs: await run(engine, job, transfer) });
    } catch (e) {
      results.push({ id: job.id, error: (e as Error).message });
    }
    if (performance.now() - since > FLUSH_AFTER_MS) flush();
  }
  if (results.length > 0) flush();
}

async function run(engine: Engine, job: RunJob, transfer: Set<ArrayBuffer>): Promise<WireTensor[]> {
  const { tf } = engine;
  const sig = engine.signatures.find((s) => s.name === job.signature);
  if (sig === undefined) throw new Error(`no signature '${job.signature}'`);
  const feeds: Record<string, TfTensor> = {};
  let outs: TfTensor[] = [];
  try {
    for (const t of job.feeds) {
      const dtype = tfjsDtypeOf(t.datatype);
      if (dtype === undefined) throw new Error(`input '${t.name}': ${t.datatype} is not supported by TensorFlow.js`);
      feeds[t.name] = tf.tensor(toTfjsValues(t.name, t.datatype, t.data) as Float32Array, [...t.dims], dtype);
    }
    outs = await engine.run(sig, feeds, job.fetches);
    const outputs: WireTensor[] = [];
    for (let i = 0; i < outs.length; i++) {
      const t = outs[i] as TfTensor;
      const datatype = job.fetchTypes[i] ?? 'FP32';
      const values = t.dtype === 'string' ? ((await t.bytes()) as Uint8Array[]) : ((await t.data()) as Float32Array | Int32Array | Uint8Array);
      let data = fromTfjsValues(datatype, values);
      if (!Array.isArray(data)) {
        // Copy when the typed array is a view on memory the backend keeps (e.g. the WASM heap).
        const buf = data.buffer;
        if (!(buf instanceof ArrayBuffer) || data.byteOffset !== 0 || data.byteLength !== buf.byteLength) data = data.slice();
        transfer.add(data.buffer as ArrayBuffer);
      }
      outputs.push({ name: job.fetches[i] as string, datatype, dims: t.shape, data });
    }
    return outputs;
  } finally {
    tf.dispose([...Object.values(feeds), ...outs]);
  }
}

void main();

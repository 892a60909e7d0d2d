/**
 * Worker-thread entry that owns one onnxruntime InferenceSession. onnxruntime-node runs
 * session creation and `run` synchronously on the calling thread, so they live here and the
 * main thread's event loop stays free. Requests are handled one at a time in arrival order.
 */
import { parentPort, workerData } from 'node:worker_threads';
import ort from 'onnxruntime-node';
import type { FromWorker, JobResult, RunJob, SessionSettings, ToWorker, WireTensor, WireValueInfo } from './onnx-messages.js';

const settings = workerData as SessionSettings;
const port = parentPort;
if (port === null) throw new Error('onnx-worker must run in a worker thread');

function post(msg: FromWorker, transfer: ArrayBuffer[] = []): void {
  port?.postMessage(msg, transfer);
}

function valueInfo(meta: readonly ort.InferenceSession.ValueMetadata[]): WireValueInfo[] {
  return meta.map((m) =>
    m.isTensor
      ? { name: m.name, type: m.type, shape: m.shape.map((d) => (typeof d === 'number' ? d : String(d))) }
      : { name: m.name, type: undefined, shape: [] },
  );
}

async function createSession(): Promise<{ session: ort.InferenceSession; providers: readonly string[]; warnings: string[] }> {
  const warnings: string[] = [];
  const options = (providers: readonly string[]): ort.InferenceSession.SessionOptions => ({
    executionProviders: providers,
    intraOpNumThreads: settings.intraOpThreads,
    interOpNumThreads: settings.interOpThreads,
    graphOptimizationLevel: 'all',
  });
  const wanted = settings.executionProviders;
  try {
    return { session: await ort.InferenceSession.create(settings.modelPath, options(wanted)), providers: wanted, warnings };
  } catch (e) {
    if (wanted.length === 1 && wanted[0] === 'cpu') throw e;
    warnings.push(
      `execution providers [${wanted.join(', ')}] failed (${(e as Error).message.split('\n')[0]}); falling back to cpu`,
    );
    return { session: await ort.InferenceSession.create(settings.modelPath, options(['cpu'])), providers: ['cpu'], warnings };
  }
}

function ownBuffer(data: WireTensor['data']): ArrayBuffer | undefined {
  if (Array.isArray(data)) return undefined;
  const buf = data.buffer;
  return buf instanceof ArrayBuffer && data.byteOffset === 0 && data.byteLength === buf.byteLength ? buf : undefined;
}

async function main(): Promise<void> {
  let session: ort.InferenceSession;
  try {
    const created = await createSession();
    session = created.session;
    post({
      op: 'loaded',
      inputs: valueInfo(session.inputMetadata),
      outputs: valueInfo(session.outputMetadata),
      executionProviders: created.providers,
      warnings: created.warnings,
    });
  } catch (e) {
    post({ op: 'load-failed', message: (e as Error).message });
    return;
  }

  let queue: Promise<void> = Promise.resolve();
  port?.on('message', (msg: ToWorker) => {
    if (msg.op === 'close') {
      queue = queue.then(() => session.release()).finally(() => port.close());
      return;
    }
    queue = queue.then(() => runJobs(session, msg.jobs));
  });
}

/** Results are flushed when the batch is done, or sooner once a batch has run this long (ms). */
const FLUSH_AFTER_MS = 2;

async function runJobs(session: ort.InferenceSession, jobs: readonly RunJob[]): Promise<void> {
  let results: JobResult[] = [];
  let transfer = new Set<ArrayBuffer>();
  let since = performance.now();
  const flush = () => {
    try {
      post({ op: 'results', results }, [...transfer]);
    } catch (e) {
      // Never let one unserialisable result take the worker (and every later request) down.
      post({ op: 'results', results: results.map((r) => ({ id: r.id, error: `cannot return outputs: ${(e as Error).message}` })) });
    }
    results = [];
    transfer = new Set();
    since = performance.now();
  };
  for (const job of jobs) {
    try {
      const outputs = await run(session, job, transfer);
      results.push({ id: job.id, outputs });
    } catch (e) {
      results.push({ id: job.id, error: (e as Error).message });
    }
    if (performance.now() - since > FLUSH_AFTER_MS) flush();
  }
  if (results.length > 0) flush();
}

async function run(session: ort.InferenceSession, job: RunJob, transfer: Set<ArrayBuffer>): Promise<WireTensor[]> {
  const feeds: Record<string, ort.Tensor> = {};
  for (const t of job.feeds) {
    feeds[t.name] = new ort.Tensor(t.type as ort.Tensor.Type, t.data as ort.Tensor.DataType, t.dims);
  }
  const result = await session.run(feeds, job.fetches as string[]);
  const outputs: WireTensor[] = [];
  for (const name of job.fetches) {
    const value = result[name];
    if (value === undefined) throw new Error(`model produced no output '${name}'`);
    let data = value.data as WireTensor['data'];
    if (!Array.isArray(data)) {
      // Copy only when the runtime handed us a view on a larger or shared buffer.
      if (ownBuffer(data) === undefined) data = data.slice();
      transfer.add(data.buffer as ArrayBuffer);
    }
    outputs.push({ name, type: value.type, dims: value.dims, data });
  }
  return outputs;
}

void main();

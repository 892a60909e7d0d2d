/**
 * Worker-thread entry that owns one onnxruntime InferenceSession. onnxruntime-node runs
 * session creation and `run` synchronously on the calling thread, so they live here and the
 * main thread's event loop stays free. Requests are handled one at a time in arrival order.
 */
import { parentPort, workerData } from 'node:worker_threads';
import ort from 'onnxruntime-node';
import type { FromWorker, SessionSettings, ToWorker, WireTensor, WireValueInfo } from './onnx-messages.js';

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

  port?.on('message', (msg: ToWorker) => {
    if (msg.op === 'close') {
      void session.release().finally(() => port.close());
      return;
    }
    void run(session, msg);
  });
}

async function run(session: ort.InferenceSession, msg: Extract<ToWorker, { op: 'run' }>): Promise<void> {
  try {
    const feeds: Record<string, ort.Tensor> = {};
    for (const t of msg.feeds) {
      feeds[t.name] = new ort.Tensor(t.type as ort.Tensor.Type, t.data as ort.Tensor.DataType, t.dims);
    }
    const result = await session.run(feeds, msg.fetches as string[]);
    const outputs: WireTensor[] = [];
    const transfer: ArrayBuffer[] = [];
    for (const name of msg.fetches) {
      const value = result[name];
      if (value === undefined) throw new Error(`model produced no output '${name}'`);
      let data = value.data as WireTensor['data'];
      if (!Array.isArray(data)) {
        // Copy only when the runtime handed us a view on a larger or shared buffer.
        const own = ownBuffer(data);
        if (own === undefined) data = data.slice();
        transfer.push(data.buffer as ArrayBuffer);
      }
      outputs.push({ name, type: value.type, dims: value.dims, data });
    }
    post({ op: 'result', id: msg.id, outputs }, transfer);
  } catch (e) {
    post({ op: 'error', id: msg.id, message: (e as Error).message });
  }
}

void main();

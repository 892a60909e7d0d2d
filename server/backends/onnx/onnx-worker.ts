/**
 * Worker-thread entry that owns one onnxruntime InferenceSession. onnxruntime-node runs
 * session creation and `run` synchronously on the calling thread, so they live here and the
 * main thread's event loop stays free. The job loop is server/worker-loop.ts.
 */
import { workerData } from 'node:worker_threads';
import ort from 'onnxruntime-node';
import { serveJobs, transferOutput } from '../../worker-loop.js';
import type { OnnxJob, OnnxLoaded, SessionSettings, WireTensor, WireValueInfo } from './onnx-messages.js';

const settings = workerData as SessionSettings;

function valueInfo(meta: readonly ort.InferenceSession.ValueMetadata[]): WireValueInfo[] {
  return meta.map((m) =>
    m.isTensor
      ? { name: m.name, type: m.type, shape: m.shape.map((d) => (typeof d === 'number' ? d : String(d))) }
      : { name: m.name, type: undefined, shape: [] },
  );
}

async function createSession(warnings: string[]): Promise<{ session: ort.InferenceSession; providers: readonly string[] }> {
  const options = (providers: readonly string[]): ort.InferenceSession.SessionOptions => ({
    executionProviders: providers,
    intraOpNumThreads: settings.intraOpThreads,
    interOpNumThreads: settings.interOpThreads,
    graphOptimizationLevel: 'all',
  });
  const wanted = settings.executionProviders;
  try {
    return { session: await ort.InferenceSession.create(settings.modelPath, options(wanted)), providers: wanted };
  } catch (e) {
    if (wanted.length === 1 && wanted[0] === 'cpu') throw e;
    warnings.push(
      `execution providers [${wanted.join(', ')}] failed (${(e as Error).message.split('\n')[0]}); falling back to cpu`,
    );
    return { session: await ort.InferenceSession.create(settings.modelPath, options(['cpu'])), providers: ['cpu'] };
  }
}

async function run(session: ort.InferenceSession, job: OnnxJob, transfer: Set<ArrayBuffer>): Promise<WireTensor[]> {
  const feeds: Record<string, ort.Tensor> = {};
  for (const t of job.feeds) {
    feeds[t.name] = new ort.Tensor(t.type as ort.Tensor.Type, t.data as ort.Tensor.DataType, t.dims);
  }
  const result = await session.run(feeds, job.fetches as string[]);
  const outputs: WireTensor[] = [];
  for (const name of job.fetches) {
    const value = result[name];
    if (value === undefined) throw new Error(`model produced no output '${name}'`);
    const data = value.data as WireTensor['data'];
    // Copied only when the runtime handed us a view on a larger or shared buffer.
    outputs.push({ name, type: value.type, dims: value.dims, data: Array.isArray(data) ? data : transferOutput(data, transfer) });
  }
  return outputs;
}

void serveJobs<OnnxLoaded, OnnxJob, WireTensor[]>(async (warnings) => {
  const { session, providers } = await createSession(warnings);
  return {
    loaded: { inputs: valueInfo(session.inputMetadata), outputs: valueInfo(session.outputMetadata), executionProviders: providers },
    runner: { run: (job, transfer) => run(session, job, transfer), close: () => session.release() },
  };
});

/**
 * Worker-thread entry that owns one onnxruntime session (onnx-runner.ts). Session creation
 * and `run` block the calling thread, so they live here and the main thread's event loop
 * stays free. The job loop is server/workers/worker-loop.ts.
 */
import { workerData } from 'node:worker_threads';
import { serveJobs, transferOutput } from '../../workers/worker-loop.js';
import type { OnnxJob, OnnxLoaded, SessionSettings, WireTensor } from './onnx-messages.js';
import { createRunner } from './onnx-runner.js';

const settings = workerData as SessionSettings;

function* feedBuffers(job: OnnxJob): Iterable<ArrayBuffer> {
  for (const f of job.feeds) if (!Array.isArray(f.data) && f.data.buffer instanceof ArrayBuffer) yield f.data.buffer;
}

void serveJobs<OnnxLoaded, OnnxJob, WireTensor[]>(async (warnings) => {
  const runner = await createRunner(settings, warnings);
  return {
    loaded: runner.loaded,
    runner: {
      // Copied only when the runtime handed us a view on a larger or shared buffer.
      run: (job, transfer) => runner.run(job, (data) => transferOutput(data, transfer)),
      // onnxruntime reads the feeds during run only: their buffers can go back for reuse.
      spent: (job) => feedBuffers(job),
      close: () => runner.close(),
    },
  };
});

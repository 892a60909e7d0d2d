/**
 * Worker-thread entry of a custom model in worker mode (--model_module_worker): imports the
 * module, loads its model with the same adapter as the main thread (model-adapter.ts), and
 * runs its hooks as jobs of the generic worker loop (server/workers/worker-loop.ts), side by side
 * as on the main thread, so a model's blocking code never holds the server's event loop.
 * Errors cross as catalogue data (WireError), already named by the adapter; a request
 * whose client goes away sees `request.signal` aborted here as it would inline.
 */
import { workerData } from 'node:worker_threads';
import { pino } from 'pino';
import type { InferContext } from '../../backend/backend.js';
import type { ClientSignal } from '../../client-signal.js';
import { logUnhandledRejections } from '../../process-faults.js';
import { serveJobs } from '../../workers/worker-loop.js';
import { modelFromModule } from './load-module.js';
import { type OpenedModel, openModel } from './model-adapter.js';
import type { ModelAnswer, ModelJob, ModelLoaded, ModelWorkerInit } from './model-jobs.js';

const init = workerData as ModelWorkerInit;
const logger = pino({ level: init.logLevel, base: { service: 'kserve-ts', thread: 'model-worker', model: init.options.name } });
// As on the main thread (process-faults.ts); an uncaught exception still ends the thread, and the model is reloaded.
logUnhandledRejections(logger);

async function run({ instance, probeHealth }: OpenedModel, job: ModelJob, signal: ClientSignal): Promise<ModelAnswer> {
  if (job.kind === 'health') return { kind: 'health', healthy: await probeHealth() };
  const context: InferContext = { ...job.context, responseHeaders: {}, signal };
  if (job.kind === 'explain') return { kind: 'explain', document: await (instance.explain as NonNullable<typeof instance.explain>)(job.inputs, context) };
  const outputs = await instance.infer(job.inputs, job.outputNames, undefined, context);
  return { kind: 'infer', outputs, responseHeaders: context.responseHeaders, parameters: context.responseParameters };
}

void serveJobs<ModelLoaded, ModelJob, ModelAnswer>(async () => {
  const opened = await openModel(await modelFromModule(init.file, init.options), logger);
  const { instance } = opened;
  return {
    loaded: { inputs: [...instance.inputs], outputs: [...instance.outputs], healthCheck: opened.healthCheck },
    runner: {
      // Hooks may await I/O (a transformer's predictor call): requests interleave as inline.
      concurrent: true,
      // Outputs are cloned, not transferred: a model may hand back arrays it keeps.
      run: (job, _transfer, signal) => run(opened, job, signal),
      // User code may leave timers or sockets open that would keep this thread alive: it
      // ends once the model has unloaded (the main thread's unload waits for the exit).
      close: async () => {
        await instance.unload();
        process.exit(0);
      },
    },
  };
});

/**
 * Worker-thread entry of a custom model in worker mode (--model_module_worker): imports the
 * module, loads its model with the same adapter as the main thread (model-adapter.ts), and
 * runs requests one message at a time, so a model's blocking code never holds the server's
 * event loop. Errors cross as catalogue data (WireError), already named by the adapter.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { pino } from 'pino';
import { toWireError } from '../../../protocols/errors.js';
import type { InferContext } from '../../backend.js';
import { logUnhandledRejections } from '../../process-faults.js';
import { loadModel } from './model-adapter.js';
import { modelFromModule } from './load-module.js';
import type { FromWorker, ToWorker, WorkerInit } from './model-worker-messages.js';

const init = workerData as WorkerInit;
const port = parentPort;
if (port === null) throw new Error('model-worker runs in a worker thread');
const post = (m: FromWorker) => port.postMessage(m);
const logger = pino({ level: init.logLevel, base: { service: 'kserve-ts', thread: 'model-worker', model: init.options.name } });
// As on the main thread (process-faults.ts); an uncaught exception still ends the thread, and the model is reloaded.
logUnhandledRejections(logger);

try {
  const instance = await loadModel(await modelFromModule(init.file, init.options), logger);
  post({ type: 'loaded', inputs: [...instance.inputs], outputs: [...instance.outputs] });
  port.on('message', (m: ToWorker) => {
    if (m.type === 'unload') {
      void instance.unload().finally(() => post({ type: 'unloaded' }));
      return;
    }
    const responseHeaders: Record<string, string> = {};
    const context = { ...m.context, responseHeaders } as InferContext;
    if (m.type === 'explain') {
      (instance.explain as NonNullable<typeof instance.explain>)(m.inputs, { ...m.context, responseHeaders }).then(
        (document) => post({ type: 'explained', id: m.id, document }),
        (err: unknown) => post({ type: 'failed', id: m.id, error: toWireError(err) }),
      );
      return;
    }
    instance.infer(m.inputs, m.outputNames, undefined, context).then(
      (outputs) => post({ type: 'result', id: m.id, outputs, responseHeaders, parameters: context.responseParameters }),
      (err: unknown) => post({ type: 'failed', id: m.id, error: toWireError(err) }),
    );
  });
} catch (err) {
  post({ type: 'load-failed', error: toWireError(err, 'ModelNotReady') });
}

/**
 * A `--model_module` in worker mode: the model lives in its own worker thread
 * (model-worker.ts) and this ModelInstance forwards requests to it, so blocking JavaScript
 * in its hooks delays only its own requests, never health probes or other models. Tensors
 * are copied to the worker (structured clone); response headers come back with the outputs.
 * If the thread dies, pending requests fail and the repository is told (onFailure).
 */
import type { Worker } from 'node:worker_threads';
import { errors, fromWireError } from '../../../protocols/errors.js';
import type { Tensor } from '../../../protocols/tensor.js';
import type { InferContext, ModelInstance, ProvidedModel } from '../../backend.js';
import { spawnWorker } from '../../worker-entry.js';
import { SDK_PLATFORM } from './model-adapter.js';
import type { FromWorker, ToWorker } from './model-worker-messages.js';
import type { ModelFactoryOptions } from './model.js';

/** Copies of the tensors' elements only: cloning a view would copy its whole (request-body) buffer. */
function own(inputs: readonly Tensor[]): Tensor[] {
  return inputs.map((t) => ({ ...t, data: Array.isArray(t.data) ? t.data.map((b) => b.slice()) : t.data.slice() }));
}

interface Pending {
  resolve(result: Tensor[] | unknown): void;
  reject(err: Error): void;
  /** The request's context, where response headers and parameters go. */
  context: InferContext | undefined;
}

export function workerModel(file: string, options: ModelFactoryOptions): ProvidedModel {
  return {
    load: (context) =>
      new Promise<ModelInstance>((resolveLoad, rejectLoad) => {
        const worker: Worker = spawnWorker(import.meta.url, 'model-worker', {
          workerData: { file, options, logLevel: context.logger.level },
          name: `custom:${options.name}`,
        });
        const pending = new Map<number, Pending>();
        const failureListeners: Array<(err: Error) => void> = [];
        let nextId = 0;
        let loaded = false;
        let unloading: (() => void) | undefined;
        let exited = false;
        const send = (m: ToWorker) => worker.postMessage(m);
        const fail = (err: Error) => {
          for (const p of pending.values()) p.reject(errors.modelNotReady(options.name, err.message));
          pending.clear();
          if (!loaded) rejectLoad(errors.modelNotReady(options.name, err.message));
          else if (unloading === undefined) for (const l of failureListeners) l(err);
        };
        worker.on('error', fail);
        worker.on('exit', (code) => {
          exited = true;
          if (unloading !== undefined) unloading();
          else fail(new Error(`model worker thread exited (code ${code})`));
        });
        worker.on('message', (m: FromWorker) => {
          if (m.type === 'load-failed') {
            rejectLoad(fromWireError(m.error));
            void worker.terminate();
          } else if (m.type === 'loaded') {
            loaded = true;
            resolveLoad({
              platform: SDK_PLATFORM,
              inputs: m.inputs,
              outputs: m.outputs,
              validatesOwnInputs: m.inputs.length === 0,
              infer(inputs: readonly Tensor[], outputNames: readonly string[], _signature?: string, ctx?: InferContext): Promise<Tensor[]> {
                const id = nextId++;
                return new Promise<Tensor[]>((resolve, reject) => {
                  pending.set(id, { resolve: (r) => resolve(r as Tensor[]), reject, context: ctx });
                  send({ type: 'infer', id, inputs: own(inputs), outputNames, context: { id: ctx?.id, parameters: ctx?.parameters, headers: { ...(ctx?.headers ?? {}) } } });
                });
              },
              explain(inputs: readonly Tensor[], ctx: InferContext): Promise<unknown> {
                const id = nextId++;
                return new Promise<unknown>((resolve, reject) => {
                  pending.set(id, { resolve, reject, context: ctx });
                  send({ type: 'explain', id, inputs: own(inputs), context: { id: ctx.id, parameters: ctx.parameters, headers: { ...ctx.headers } } });
                });
              },
              // A thread that already died (onFailure) has nothing left to unload.
              unload: () =>
                exited
                  ? Promise.resolve()
                  : new Promise<void>((resolve) => {
                      unloading = resolve;
                      send({ type: 'unload' });
                    }),
              onFailure: (listener) => void failureListeners.push(listener),
            });
          } else if (m.type === 'unloaded') {
            void worker.terminate();
          } else {
            const p = pending.get(m.id);
            if (p === undefined) return;
            pending.delete(m.id);
            if (m.type === 'result') {
              if (p.context !== undefined) {
                Object.assign(p.context.responseHeaders, m.responseHeaders);
                if (m.parameters !== undefined) p.context.responseParameters = m.parameters;
              }
              p.resolve(m.outputs);
            } else if (m.type === 'explained') p.resolve(m.document);
            else p.reject(fromWireError(m.error));
          }
        });
      }),
  };
}

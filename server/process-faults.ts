/**
 * The process policy for faults no caller catches (docs/custom-models.md, "Faults outside a
 * request"). Custom models run their hooks on the main thread, where a bug in them (a promise
 * nobody awaits, a callback that throws) would otherwise end the whole server with Node's
 * default: a stack on stderr, no JSON log line, every model gone.
 *
 * - A rejected promise nobody handles is logged as one JSON line (naming the custom model
 *   whose hook started it, when one did) and the server serves on: no caller is left waiting
 *   for that work, and nothing of the server's was half done by it (KServe's asyncio server
 *   logs "Task exception was never retrieved" and serves on alike). A model whose background
 *   work fails on every request must not be reloaded on every request.
 * - An exception thrown from a callback a custom model's hook started fails that model and
 *   reloads it, as a model worker thread (--model_module_worker) that dies does: the model's
 *   state is unknown, the server's is not.
 * - Any other uncaught exception is the server's own bug, after which Node cannot vouch for
 *   its state: logged as a fatal JSON line, then the server shuts down (draining in-flight
 *   requests) and exits 1, for the container's restart policy.
 *
 * Attribution is by AsyncLocalStorage: the adapter runs each hook inside `runAsModel`, and
 * every callback and promise the hook starts carries that context.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Logger } from 'pino';
import { thrownText } from './error-text.js';

/** The custom model whose hook is running, and how to fail it. */
export interface FaultOwner {
  readonly model: string;
  /** Marks the model failed (the repository unloads and reloads it). */
  fail(err: Error): void;
}

const owners = new AsyncLocalStorage<FaultOwner>();

/** Runs a custom model's hook so that faults it leaves behind are attributed to the model. */
export function runAsModel<T>(owner: FaultOwner, hook: () => T): T {
  return owners.run(owner, hook);
}

/** Logs unhandled rejections and serves on (the main thread and a model worker thread alike). */
export function logUnhandledRejections(logger: Logger): () => void {
  const onRejection = (reason: unknown) => {
    logger.error({ model: owners.getStore()?.model, err: thrownText(reason) }, 'unhandled promise rejection; serving on');
  };
  process.on('unhandledRejection', onRejection);
  return () => process.off('unhandledRejection', onRejection);
}

/**
 * Installs the whole policy for a serving process. `shutDown` is called once, for the first
 * uncaught exception no custom model owns: it should drain, close and exit non-zero.
 * Returns a function that removes the handlers.
 */
export function installFaultPolicy(logger: Logger, shutDown: (err: unknown) => void): () => void {
  const removeRejections = logUnhandledRejections(logger);
  let fatal = false;
  const onException = (err: unknown) => {
    const owner = owners.getStore();
    if (owner !== undefined) {
      logger.error({ model: owner.model, err: thrownText(err) }, 'uncaught exception in a custom model; failing and reloading it');
      owner.fail(new Error(`uncaught exception: ${thrownText(err).message}`));
      return;
    }
    logger.fatal({ err: thrownText(err) }, 'uncaught exception; shutting down');
    if (fatal) return;
    fatal = true;
    shutDown(err);
  };
  process.on('uncaughtException', onException);
  return () => {
    removeRejections();
    process.off('uncaughtException', onException);
  };
}

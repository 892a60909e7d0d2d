/**
 * Dynamic batching as a ModelInstance decorator: wraps a backend's instance at load time
 * (model-repository.ts) when config.pbtxt has `dynamic_batching` and `max_batch_size > 0`,
 * so every transport (V1, V2 REST, gRPC) gets it and no backend needs to know.
 *
 * Contract:
 * - Concurrent `infer` calls whose inputs agree on names, datatypes and every dim but the
 *   first, that ask for the same outputs of the same signature, and that agree on the
 *   inner instance's `batchParameters` (e.g. a text model's `dimensions`), are stacked along
 *   dim 0 into one inner `infer` of at most `maxBatchSize` rows (scheduling: batch-queue.ts).
 *   A batch of several runs with a context holding only those parameters. Text models
 *   stack their rows of text this way and pad each batch to its longest sequence
 *   (server/backends/text).
 *   Others run in batches of their own. A request that cannot be batched (an input without
 *   dim 0, inputs disagreeing on dim 0, more rows than `maxBatchSize`) runs alone, at once.
 * - Adaptive (scheduling: batch-queue.ts): a request that finds the model idle runs at once,
 *   alone, with no delay; batches form only from requests that queued while the model was
 *   busy, and go when it is idle again. With `instances` (an instance group), that many
 *   batches run at once, one per instance. A full batch may be handed over while the others
 *   run, up to `maxInFlight` in all (default `instances` + 1: an ONNX worker runs one job at
 *   a time in arrival order, so the staged one waits in a queue and starts without a round
 *   trip to this thread).
 * - Ordering: each caller gets exactly its rows, in its order; calls in one batch are
 *   stacked in arrival order.
 * - Errors are isolated: if a batched inner call fails (or its outputs lost the batch
 *   dimension), each of its requests is retried alone, so only the offending ones fail, with
 *   their own error. A batch of one is never retried.
 * - Ownership: a batch of one passes the caller's tensors through (no copy; the inner
 *   instance may detach them, as the ModelInstance contract allows). A larger batch is
 *   stacked into one new allocation per input, which the inner call may transfer, so
 *   callers' inputs stay intact for a retry. Outputs are copies per caller, which it owns.
 * - unload: queued calls that have not started are rejected; then the inner instance unloads.
 */
import { errors } from '../../protocols/errors.js';
import type { SignatureDef, Tensor, TensorSpec } from '../../protocols/tensor.js';
import type { InferContext, ModelInstance } from '../backend/backend.js';
import { BatchQueue } from './batch-queue.js';
import { batchContext, batchKey, batchRows, splitOutputs, stackInputs } from './stacking.js';

export interface BatchingOptions {
  readonly modelName: string;
  readonly maxBatchSize: number;
  readonly preferredBatchSizes: readonly number[];
  /**
   * Accepted from config.pbtxt and not used to schedule: a queued batch goes as soon as
   * the model is idle, which is never later than this bound would allow (batch-queue.ts).
   */
  readonly maxQueueDelayMicroseconds: number;
  /** Batches handed to the inner instance at a time, at most (default: one per instance, and one staged). */
  readonly maxInFlight?: number | undefined;
  /**
   * Instances behind the inner instance (an InstancePool's size): that many batches run at
   * once, each going as soon as an instance is idle. Default 1.
   */
  readonly instances?: number | undefined;
  /** Called once per inner call with its rows, and once per request with its queue time. */
  readonly observer?: BatchObserver | undefined;
}

export interface BatchObserver {
  batchSize(rows: number): void;
  queueSeconds(seconds: number): void;
  /**
   * Once per inner call that succeeded (a batch, a request run alone or a retry): its rows
   * and how long the inner instance took (the statistics extension's executions).
   */
  executed?(rows: number, seconds: number): void;
}

/** Beyond one batch running on each instance, one staged behind them. */
const STAGED = 1;

interface Pending {
  readonly inputs: readonly Tensor[];
  readonly outputNames: readonly string[];
  readonly signature: string | undefined;
  readonly rows: number;
  readonly queuedAt: number;
  /** The request's context: its signal drops it from the batch if its client goes away first. */
  readonly context: InferContext | undefined;
  resolve: (outputs: Tensor[]) => void;
  reject: (err: unknown) => void;
}

export class BatchingInstance implements ModelInstance {
  readonly #inner: ModelInstance;
  readonly #opts: BatchingOptions;
  readonly #queue: BatchQueue<Pending>;

  constructor(inner: ModelInstance, opts: BatchingOptions) {
    this.#inner = inner;
    this.#opts = opts;
    const instances = Math.max(1, opts.instances ?? 1);
    this.#queue = new BatchQueue<Pending>(
      {
        maxBatchSize: opts.maxBatchSize,
        preferredBatchSizes: opts.preferredBatchSizes,
        maxInFlight: Math.max(instances, opts.maxInFlight ?? instances + STAGED),
        instances,
      },
      (items) => this.#runBatch(items),
    );
  }

  get platform(): string {
    return this.#inner.platform;
  }
  /** Where the model runs (kserve_model_info): the wrapped instance's provider. */
  get executionProvider(): string | undefined {
    return this.#inner.executionProvider;
  }
  get inputs(): readonly TensorSpec[] {
    return this.#inner.inputs;
  }
  get outputs(): readonly TensorSpec[] {
    return this.#inner.outputs;
  }
  get signatures(): readonly SignatureDef[] | undefined {
    return this.#inner.signatures;
  }
  /** The scope skips validation for an inner instance that checks its own inputs (a text model). */
  get validatesOwnInputs(): boolean | undefined {
    return this.#inner.validatesOwnInputs;
  }

  /**
   * A request whose client went away while it waited for its batch is answered Cancelled and
   * left out when the batch runs; once its batch runs it finishes with it.
   */
  infer(inputs: readonly Tensor[], outputNames: readonly string[], signature?: string, context?: InferContext): Promise<Tensor[]> {
    const rows = batchRows(inputs);
    if (rows === undefined || rows < 1 || rows > this.#opts.maxBatchSize) {
      this.#opts.observer?.batchSize(rows ?? 1);
      // The model is busy with it: batches wait behind it as behind one of their own.
      return this.#queue.occupy(() => this.#timed(rows ?? 1, () => this.#inner.infer(inputs, outputNames, signature, context)));
    }
    if (context?.signal?.aborted === true) return Promise.reject(errors.cancelled(this.#opts.modelName));
    return new Promise<Tensor[]>((resolve, reject) => {
      const pending: Pending = { inputs, outputNames, signature, rows, queuedAt: performance.now(), context, resolve, reject };
      this.#queue.push(batchKey(inputs, outputNames, signature, context?.parameters, this.#inner.batchParameters), rows, pending);
    });
  }

  async #runBatch(queued: Pending[]): Promise<void> {
    // Requests whose clients went away do not run.
    const items: Pending[] = [];
    for (const p of queued) {
      if (p.context?.signal?.aborted === true) p.reject(errors.cancelled(this.#opts.modelName));
      else items.push(p);
    }
    if (items.length === 0) return;
    const now = performance.now();
    for (const p of items) this.#opts.observer?.queueSeconds((now - p.queuedAt) / 1000);
    const first = items[0] as Pending;
    const total = items.reduce((n, p) => n + p.rows, 0);
    this.#opts.observer?.batchSize(total);
    if (items.length === 1) {
      await this.#solo(first);
      return;
    }
    let split: Tensor[][];
    try {
      const context = batchContext(first.context?.parameters, this.#inner.batchParameters);
      const outputs = await this.#timed(total, () => this.#inner.infer(stackInputs(items.map((p) => p.inputs)), first.outputNames, first.signature, context));
      split = splitOutputs(
        outputs,
        items.map((p) => p.rows),
      );
    } catch {
      // Isolate the failure: each request alone, so only the offending ones fail.
      await Promise.all(
        items.map((p) => {
          this.#opts.observer?.batchSize(p.rows);
          return this.#solo(p);
        }),
      );
      return;
    }
    items.forEach((p, i) => p.resolve(split[i] as Tensor[]));
  }

  /** Runs one request alone and settles it; never rejects, even if the inner call throws synchronously. */
  #solo(p: Pending): Promise<void> {
    return Promise.resolve()
      .then(() => this.#timed(p.rows, () => this.#inner.infer(p.inputs, p.outputNames, p.signature, p.context)))
      .then(p.resolve, p.reject);
  }

  /** Runs one inner call and reports it as an execution once it succeeds. */
  async #timed(rows: number, run: () => Promise<Tensor[]>): Promise<Tensor[]> {
    const observer = this.#opts.observer;
    if (observer?.executed === undefined) return run();
    const start = performance.now();
    const outputs = await run();
    observer.executed(rows, (performance.now() - start) / 1000);
    return outputs;
  }

  async unload(): Promise<void> {
    for (const p of this.#queue.drain()) p.reject(errors.modelNotReady(this.#opts.modelName, 'the model is unloading'));
    await this.#inner.unload();
  }

  onFailure(listener: (err: Error) => void): void {
    this.#inner.onFailure(listener);
  }
}

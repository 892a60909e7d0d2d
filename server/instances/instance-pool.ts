/**
 * The instances of one model version (config.pbtxt `instance_group`) served as one
 * ModelInstance: each call goes to the first free instance, as Triton's scheduler hands a
 * request to an idle instance. The repository builds it when a version has several
 * instances (one instance is served as it is); the dynamic batcher, when configured, sits in
 * front of it and hands it batches.
 *
 * Contract:
 * - An instance is busy from the call it was handed until that call settles; each runs one
 *   call at a time. A call that finds every instance busy waits in one FIFO queue and goes to
 *   the first instance that frees, so a slow call on one instance never holds up the others.
 * - A waiting call whose client went away (its context's signal, checked every
 *   CANCEL_POLL_MS while it waits) is answered Cancelled and never runs.
 * - The version's description (platform, tensors, signatures) is its first instance's: every
 *   instance loaded the same files. `executionProvider` lists the distinct providers the
 *   instances run on, in instance order (e.g. "cuda,cpu" when one fell back), for
 *   kserve_model_info's one series per version.
 * - Failure: the first instance that breaks on its own breaks the version (the repository
 *   then reloads it whole); `onFailure` listeners are called once.
 * - unload: waiting calls are refused (ModelNotReady), then every instance unloads.
 */
import { errors } from '../../protocols/errors.js';
import type { SignatureDef, Tensor, TensorSpec } from '../../protocols/tensor.js';
import type { InferContext, ModelInstance } from '../backend/backend.js';
import type { ClientSignal } from '../client-signal.js';
import { CANCEL_POLL_MS } from '../workers/worker-session.js';

interface Waiting {
  readonly work: (instance: ModelInstance) => Promise<unknown>;
  readonly signal: ClientSignal | undefined;
  readonly resolve: (value: unknown) => void;
  readonly reject: (err: unknown) => void;
}

export class InstancePool implements ModelInstance {
  readonly #instances: readonly ModelInstance[];
  readonly #modelName: string;
  readonly #busy: boolean[];
  readonly #waiting: Waiting[] = [];
  readonly #failureListeners: Array<(err: Error) => void> = [];
  #failed = false;
  #cancelPoll: NodeJS.Timeout | undefined;
  readonly explain?: (inputs: readonly Tensor[], context: InferContext) => Promise<unknown>;

  constructor(instances: readonly ModelInstance[], modelName: string) {
    if (instances.length === 0) throw new TypeError('an instance pool needs at least one instance');
    this.#instances = instances;
    this.#modelName = modelName;
    this.#busy = instances.map(() => false);
    if (instances.every((i) => i.explain !== undefined)) {
      this.explain = (inputs, context) => this.#dispatch((i) => (i.explain as NonNullable<ModelInstance['explain']>).call(i, inputs, context), context.signal);
    }
    for (const i of instances) i.onFailure((err) => this.#fail(err));
  }

  get #first(): ModelInstance {
    return this.#instances[0] as ModelInstance;
  }
  get platform(): string {
    return this.#first.platform;
  }
  get executionProvider(): string | undefined {
    const providers = [...new Set(this.#instances.flatMap((i) => (i.executionProvider === undefined ? [] : [i.executionProvider])))];
    return providers.length === 0 ? undefined : providers.join(',');
  }
  get inputs(): readonly TensorSpec[] {
    return this.#first.inputs;
  }
  get outputs(): readonly TensorSpec[] {
    return this.#first.outputs;
  }
  get signatures(): readonly SignatureDef[] | undefined {
    return this.#first.signatures;
  }
  get validatesOwnInputs(): boolean | undefined {
    return this.#first.validatesOwnInputs;
  }
  get batchParameters(): readonly string[] | undefined {
    return this.#first.batchParameters;
  }

  /** How many instances serve the version. */
  get size(): number {
    return this.#instances.length;
  }

  infer(inputs: readonly Tensor[], outputNames: readonly string[], signature?: string, context?: InferContext): Promise<Tensor[]> {
    return this.#dispatch((i) => i.infer(inputs, outputNames, signature, context), context?.signal);
  }

  /** Fit to serve when every instance is. */
  healthy(): boolean {
    return this.#instances.every((i) => i.healthy?.() !== false);
  }

  async unload(): Promise<void> {
    for (const w of this.#waiting.splice(0)) w.reject(errors.modelNotReady(this.#modelName, 'the model is unloading'));
    await Promise.allSettled(this.#instances.map((i) => i.unload()));
  }

  onFailure(listener: (err: Error) => void): void {
    this.#failureListeners.push(listener);
  }

  #dispatch<R>(work: (instance: ModelInstance) => Promise<R>, signal: ClientSignal | undefined): Promise<R> {
    if (signal?.aborted === true) return Promise.reject(errors.cancelled(this.#modelName));
    const free = this.#busy.indexOf(false);
    if (free >= 0 && this.#waiting.length === 0) return this.#runOn(free, work);
    return new Promise<R>((resolve, reject) => {
      this.#waiting.push({ work, signal, resolve: (value) => resolve(value as R), reject });
      if (signal !== undefined) this.#pollCancels();
    });
  }

  /** Runs `work` on instance `index`, which is busy until it settles; then the next waiting call goes. */
  #runOn<R>(index: number, work: (instance: ModelInstance) => Promise<R>): Promise<R> {
    this.#busy[index] = true;
    // A synchronous throw in the instance settles this call like a rejection, and frees the instance.
    const running = Promise.resolve().then(() => work(this.#instances[index] as ModelInstance));
    const free = (): void => {
      this.#busy[index] = false;
      this.#next();
    };
    running.then(free, free);
    return running;
  }

  #next(): void {
    for (let free = this.#busy.indexOf(false); free >= 0 && this.#waiting.length > 0; free = this.#busy.indexOf(false)) {
      const w = this.#waiting.shift() as Waiting;
      if (w.signal?.aborted === true) {
        w.reject(errors.cancelled(this.#modelName));
        continue;
      }
      this.#runOn(free, w.work).then(w.resolve, w.reject);
    }
  }

  /** Answers waiting calls whose clients went away, while any call with a signal waits. */
  #pollCancels(): void {
    if (this.#cancelPoll !== undefined) return;
    this.#cancelPoll = setTimeout(() => {
      this.#cancelPoll = undefined;
      const gone = this.#waiting.filter((w) => w.signal?.aborted === true);
      for (const w of gone) {
        this.#waiting.splice(this.#waiting.indexOf(w), 1);
        w.reject(errors.cancelled(this.#modelName));
      }
      if (this.#waiting.some((w) => w.signal !== undefined)) this.#pollCancels();
    }, CANCEL_POLL_MS);
    // Never keeps the process alive on its own.
    this.#cancelPoll.unref();
  }

  #fail(err: Error): void {
    if (this.#failed) return;
    this.#failed = true;
    for (const l of this.#failureListeners) l(err);
  }
}

/**
 * A gate in front of every model instance a test server loads: the real backends (onnx,
 * tensorflow, custom) load and run the models, but while the test holds the gate each call
 * to an instance waits, recorded with its request context, until the test releases it. Tests
 * that need work to be "in progress" (a running inference for others to queue behind, a
 * request in flight at shutdown) hold the gate instead of sizing an inference to last longer
 * than something else takes, so no outcome depends on the machine's speed.
 *
 * The gate sits where a backend's instance sits: the dynamic batcher (server/batching) and
 * the repository's queue depth see a held call exactly as a long inference.
 */
import type { Tensor } from '../../protocols/tensor.js';
import type { Backend, InferContext, ModelInstance } from '../../server/backend/backend.js';
import { BackendRegistry } from '../../server/backend/backend-registry.js';
import { defaultBackends } from '../../server/server.js';
import type { ModelServer } from '../../server/server.js';
import { metricValue } from './http.js';
import { waitFor } from './wait-for.js';

/**
 * Resolves once `server` reports exactly `n` requests queued or running for `model` (its own
 * kserve_model_queue_depth gauge: a request counts from the moment it reached the model's
 * instance, or its batcher, until it is answered). Bounded: fails only as a timeout.
 */
export async function untilQueueDepth(server: ModelServer, model: string, n: number, timeoutMs = 60_000): Promise<void> {
  await waitFor(async () => metricValue(await server.metrics.render(), 'kserve_model_queue_depth', { model_name: model }), {
    until: (depth) => depth === n,
    timeoutMs,
    intervalMs: 5,
    description: `${n} requests in ${model}'s queue (kserve_model_queue_depth)`,
  });
}

/** One call waiting at the gate. */
export interface HeldCall {
  readonly model: string;
  /** Which instance of the version's instance group the call reached (LoadSpec.instance), 0 without a group. */
  readonly instance: number;
  /** The tensors the instance was called with (read them before releasing the call: it may detach them). */
  readonly inputs: readonly Tensor[];
  /** The request's context as the instance got it (its `signal` tells whether the client is gone). */
  readonly context: InferContext | undefined;
}

export class ModelGate {
  #holding = false;
  /** While holding: only calls on this instance wait; undefined: every call. */
  #instance: number | undefined;
  readonly #waiting: Array<HeldCall & { release(): void }> = [];

  /**
   * From now on, calls wait at the gate until `release`; with `instance`, only the calls that
   * reach that instance of an instance group (config.pbtxt instance_group), the others pass.
   */
  hold(instance?: number): void {
    this.#holding = true;
    this.#instance = instance;
  }

  /** Lets every waiting call through and stops holding. */
  release(): void {
    this.#holding = false;
    for (const call of this.#waiting.splice(0)) call.release();
  }

  /** The calls waiting now, in arrival order. */
  get held(): readonly HeldCall[] {
    return this.#waiting;
  }

  /** Resolves once `n` calls wait at the gate (bounded: fails as a timeout). */
  async untilHeld(n: number, timeoutMs = 60_000): Promise<readonly HeldCall[]> {
    await waitFor(() => this.#waiting.length >= n, { timeoutMs, intervalMs: 5, description: `${n} calls held at the gate` });
    return this.#waiting;
  }

  /**
   * Sends `blocker`, which finds `model` idle and so runs at once, alone, and holds it at the
   * model; then sends `queued`, and releases the blocker only once `server` counts all of
   * them (and `others` the caller sends meanwhile) in the model's queue. With dynamic
   * batching, a full batch that forms meanwhile is handed to the model and held too, so
   * nothing is answered before everything has queued.
   */
  async behindHeld<B, T>(server: ModelServer, model: string, blocker: () => Promise<B>, queued: () => Array<Promise<T>>, others = 0): Promise<{ first: B; rest: T[] }> {
    this.hold();
    try {
      const first = blocker();
      await this.untilHeld(1);
      const rest = queued();
      await untilQueueDepth(server, model, 1 + rest.length + others);
      this.release();
      return { first: await first, rest: await Promise.all(rest) };
    } finally {
      this.release();
    }
  }

  /** Wraps an instance so that its infer (and explain) calls pass the gate first. */
  wrap(model: string, inner: ModelInstance, instance = 0): ModelInstance {
    const pass = async (inputs: readonly Tensor[], context: InferContext | undefined): Promise<void> => {
      if (!this.#holding || (this.#instance !== undefined && this.#instance !== instance)) return;
      await new Promise<void>((release) => this.#waiting.push({ model, instance, inputs, context, release }));
    };
    const infer: ModelInstance['infer'] = async (inputs, outputNames, signature, context) => {
      await pass(inputs, context);
      return inner.infer(inputs, outputNames, signature, context);
    };
    const explain: ModelInstance['explain'] = async (inputs, context) => {
      await pass(inputs, context);
      return (inner.explain as NonNullable<ModelInstance['explain']>).call(inner, inputs, context);
    };
    // Everything else is the instance's own (read on it, so its private fields stay its own).
    return new Proxy(inner, {
      get(target, key) {
        if (key === 'infer') return infer;
        if (key === 'explain' && target.explain !== undefined) return explain;
        const value: unknown = Reflect.get(target, key, target);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
  }

  /** The default backends, each loading its models through this gate. */
  backends(): BackendRegistry {
    const registry = new BackendRegistry();
    for (const b of defaultBackends().all()) registry.register(this.#gated(b));
    return registry;
  }

  #gated(b: Backend): Backend {
    const gated: Backend = {
      name: b.name,
      aliases: b.aliases,
      flags: b.flags,
      ...(b.instanceGroups === undefined ? {} : { instanceGroups: b.instanceGroups }),
      settings: (flags) => b.settings(flags),
      modelOptions: (settings, parameters) => b.modelOptions(settings, parameters),
      detect: (dir, files) => b.detect(dir, files),
      load: async (spec, options, context) => this.wrap(spec.modelName, await b.load(spec, options, context), spec.instance?.index),
    };
    const { prepareProcess, providedModels } = b;
    if (prepareProcess !== undefined) gated.prepareProcess = (settings) => prepareProcess.call(b, settings);
    if (providedModels !== undefined) gated.providedModels = (settings, server) => providedModels.call(b, settings, server);
    return gated;
  }
}

/**
 * The steps the router tests route to: real kserve-ts servers (the SDK's ModelServer) on
 * loopback, REST and gRPC, serving small custom models whose answers are easy to check:
 * - `double` / `triple`: every input element times 2 / 3 (FP32 `x` over V2, `instances`
 *   over V1, answered as `predictions`); its output is named `y`; `triple_any` takes its one
 *   input whatever its name (a `$response` of `y` chained over V2);
 * - `fail`: always an InferenceError (500, JSON `{"error": ...}`); `reject`: an
 *   InvalidInput (400); `headers`: answers which of `x-tag`, `x-other`, `x-request-id` it got;
 * - `held`: answers like `double`, but only once the test releases it (`gate.release()`),
 *   so a step past its timeout is decided by the gate, never by the machine's speed.
 */
import { pino } from 'pino';
import { freePort } from '../helpers/free-port.js';
import {
  type InferInput,
  InferOutput,
  type InferRequest,
  InferResponse,
  InferenceError,
  InvalidInput,
  Model,
  ModelServer,
  type RequestHeaders,
  type TensorSpec,
} from '../../server/sdk/index.js';

class Scale extends Model {
  constructor(
    name: string,
    readonly factor: number,
    /** Declares its input `x` (V1 instances decode to it); undeclared, any one V2 input is taken. */
    readonly declared = true,
  ) {
    super(name);
  }
  override getInputTypes(): TensorSpec[] {
    return this.declared ? [{ name: 'x', datatype: 'FP32', shape: [-1, -1] }] : [];
  }
  override getOutputTypes(): TensorSpec[] {
    return [{ name: 'y', datatype: 'FP32', shape: [-1, -1] }];
  }
  override predict(request: InferRequest, _headers?: RequestHeaders): InferResponse | Promise<InferResponse> {
    const x = request.inputs[0] as InferInput;
    return new InferResponse(
      this.name,
      [
        new InferOutput(
          'y',
          x.shape,
          'FP32',
          x.asNumbers().map((v) => v * this.factor),
        ),
      ],
      { id: request.id },
    );
  }
}

class Fail extends Scale {
  override predict(): InferResponse {
    throw new InferenceError(`${this.name} always fails`);
  }
}

class Reject extends Scale {
  override predict(): InferResponse {
    throw new InvalidInput(`${this.name} rejects every request`);
  }
}

/** Answers the request's `x-tag` and `x-other` headers as a BYTES output `headers` (which headers a step got). */
class Headers extends Scale {
  override getOutputTypes(): TensorSpec[] {
    return [{ name: 'headers', datatype: 'BYTES', shape: [-1] }];
  }
  override predict(request: InferRequest, headers?: RequestHeaders): InferResponse {
    headers ??= {};
    const seen = ['x-tag', 'x-other', 'x-request-id'].map((h) => `${h}=${headers[h] ?? ''}`);
    return new InferResponse(this.name, [new InferOutput('headers', [seen.length], 'BYTES', seen)], { id: request.id });
  }
}

/** Holds every answer until released; counts what arrived, so the test can wait for it. */
export class Gate {
  #release: (() => void) | undefined;
  readonly #opened: Promise<void>;
  arrived = 0;
  readonly #arrivals: (() => void)[] = [];
  constructor() {
    this.#opened = new Promise((r) => (this.#release = r));
  }
  release(): void {
    this.#release?.();
  }
  get opened(): Promise<void> {
    return this.#opened;
  }
  /** Resolves once `n` requests have arrived at the held model. */
  waitForArrivals(n: number): Promise<void> {
    if (this.arrived >= n) return Promise.resolve();
    return new Promise((resolve) => this.#arrivals.push(() => this.arrived >= n && resolve()));
  }
  arrive(): void {
    this.arrived++;
    for (const f of this.#arrivals) f();
  }
}

class Held extends Scale {
  constructor(
    name: string,
    readonly gates: () => Gate,
  ) {
    super(name, 2);
  }
  override async predict(request: InferRequest): Promise<InferResponse> {
    const gate = this.gates();
    gate.arrive();
    await gate.opened;
    return super.predict(request);
  }
}

/** Where the tests' graphs send their steps. */
export interface Steps {
  v1(model: string): string;
  v2(model: string): string;
  /** A URL where nothing listens (connection refused). */
  readonly refused: string;
}

/** The step URLs on `p`, and a loopback port nothing listens on (taken free a moment ago). */
export async function stepsOf(p: Predictors): Promise<Steps> {
  const closed = await freePort();
  return {
    v1: (m) => `${p.url}/v1/models/${m}:predict`,
    v2: (m) => `${p.url}/v2/models/${m}/infer`,
    refused: `http://127.0.0.1:${closed}/v1/models/gone:predict`,
  };
}

export interface Predictors {
  /** REST base URL, e.g. http://127.0.0.1:40123 */
  readonly url: string;
  /** gRPC target, e.g. 127.0.0.1:40124 */
  readonly grpc: string;
  /** A fresh gate for the `held` model (the previous one is released). */
  newGate(): Gate;
  close(): Promise<void>;
}

export async function startPredictors(): Promise<Predictors> {
  let gate = new Gate();
  const server = new ModelServer({ httpPort: 0, grpcPort: 0, httpHost: '127.0.0.1', args: ['--grace_period_seconds', '1'], logger: pino({ level: 'silent' }) });
  await server.start([
    new Scale('double', 2),
    new Scale('triple', 3),
    new Scale('triple_any', 3, false),
    new Fail('fail', 1),
    new Reject('reject', 1),
    new Headers('headers', 1),
    new Held('held', () => gate),
  ]);
  return {
    url: `http://127.0.0.1:${server.httpPort}`,
    grpc: `127.0.0.1:${server.grpcPort}`,
    newGate() {
      gate.release();
      gate = new Gate();
      return gate;
    },
    async close() {
      gate.release();
      await server.stop();
    },
  };
}

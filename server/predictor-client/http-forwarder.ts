/**
 * Pooled HTTP to one predictor (undici Pool, keep-alive), shared by the V1 and V2 REST
 * clients: one POST or GET with the attempt, timeout, retry and cancel rules of
 * predictor-client.ts, and the predictor's errors mapped to catalogue kinds
 * (predictor-status.ts). Bodies are read whole but bounded, each by MAX_RESPONSE_BYTES and
 * all those being read at once by --predictor_max_inflight_answer_bytes (server/byte-budget.ts,
 * the REST bodies' budget), so a predictor cannot make the transformer buffer without limit
 * (8 endless answers took it to 1.45 GB): past the budget a request fails with 503 ServerBusy.
 */
import { Pool } from 'undici';
import { KServeError, errors } from '../../protocols/errors.js';
import { ByteBudget } from '../byte-budget.js';
import type { ClientSignal } from '../client-signal.js';
import { AttemptControl } from './attempt-control.js';
import type { PredictorConfig } from './predictor-config.js';
import { errorMessage, httpRefusal } from './predictor-status.js';
import { backoff, isConnectError } from './retry-policy.js';

/** Largest predictor answer read (bytes), as the server's default REST body limit. */
export const MAX_RESPONSE_BYTES = 256 * 1024 * 1024;

export interface HttpAnswer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: Buffer;
}

/**
 * One exchange as the graph router needs it (it passes a step's answer on whatever its
 * status): an answer, or why none came. `headersArrived` tells a timeout while waiting
 * for the answer from one while reading its body.
 */
export type Exchange =
  | { readonly kind: 'answer'; readonly answer: HttpAnswer }
  | { readonly kind: 'timeout'; readonly headersArrived: boolean }
  | { readonly kind: 'cancelled' }
  | { readonly kind: 'failed'; readonly error: unknown };

function flatHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

export class HttpForwarder {
  readonly #pool: Pool;
  readonly #config: Required<PredictorConfig>;
  readonly #answers: ByteBudget;
  /** `http(s)://host[:port]`, for messages. */
  readonly target: string;

  constructor(config: Required<PredictorConfig>) {
    this.#config = config;
    this.#answers = new ByteBudget(config.maxInflightAnswerBytes);
    this.target = `${config.useSsl ? 'https' : 'http'}://${config.host}`;
    this.#pool = new Pool(this.target, { connections: 128, keepAliveTimeout: 60_000, pipelining: 1 });
  }

  /**
   * Sends one request; resolves with a 2xx answer, rejects with a catalogue error (a
   * non-2xx answer becomes its kind with the predictor's message). `modelName` names the
   * request in a Cancelled error.
   */
  async send(
    method: 'GET' | 'POST',
    path: string,
    headers: Record<string, string>,
    body: Buffer | undefined,
    signal: ClientSignal | undefined,
    modelName = '',
  ): Promise<HttpAnswer> {
    const attempts = 1 + this.#config.retries;
    for (let attempt = 1; ; attempt++) {
      const control = new AttemptControl(this.#config.requestTimeoutSeconds * 1000, signal);
      let answer: HttpAnswer;
      try {
        answer = await this.#once(method, path, headers, body, control.signal);
      } catch (err) {
        if (control.why === 'timeout') throw errors.predictorTimeout(this.target, this.#config.requestTimeoutSeconds);
        if (control.why === 'cancelled') throw errors.cancelled(modelName);
        if (err instanceof KServeError) throw err;
        if (isConnectError(err) && attempt < attempts) {
          await backoff(attempt, undefined);
          continue;
        }
        const reason = err instanceof Error ? err.message : String(err);
        throw errors.predictorUnreachable(this.target, reason, attempt);
      } finally {
        control.dispose();
      }
      if (answer.status >= 200 && answer.status < 300) return answer;
      if (answer.status === 503 && attempt < attempts) {
        await backoff(attempt, undefined);
        continue;
      }
      throw httpRefusal(this.target, answer.status, errorMessage(answer.body.subarray(0, 4096).toString('utf8')));
    }
  }

  /**
   * One POST, no retry, any status back; `timeoutSeconds` bounds the whole exchange (the
   * config's when absent; Infinity: none), `signal` cancels it. Never rejects.
   */
  async exchange(
    path: string,
    headers: Record<string, string>,
    body: Buffer,
    signal: AbortSignal | undefined,
    timeoutSeconds = this.#config.requestTimeoutSeconds,
  ): Promise<Exchange> {
    const control = new AttemptControl(timeoutSeconds * 1000, signal);
    const phase = { headersArrived: false };
    try {
      return { kind: 'answer', answer: await this.#once('POST', path, headers, body, control.signal, phase) };
    } catch (error) {
      if (control.why === 'timeout') return { kind: 'timeout', headersArrived: phase.headersArrived };
      if (control.why === 'cancelled') return { kind: 'cancelled' };
      return { kind: 'failed', error };
    } finally {
      control.dispose();
    }
  }

  async #once(
    method: 'GET' | 'POST',
    path: string,
    headers: Record<string, string>,
    body: Buffer | undefined,
    signal: AbortSignal,
    phase?: { headersArrived: boolean },
  ): Promise<HttpAnswer> {
    // The attempt's own timer bounds the whole exchange; undici's per-phase timers are off.
    const res = await this.#pool.request({ method, path, headers, body, signal, headersTimeout: 0, bodyTimeout: 0 });
    if (phase !== undefined) phase.headersArrived = true;
    const declared = Number(res.headers['content-length']);
    if (Number.isFinite(declared) && declared > MAX_RESPONSE_BYTES) {
      res.body.destroy();
      throw errors.predictorError(this.target, `answer of ${declared} bytes is larger than ${MAX_RESPONSE_BYTES}`);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    // Given back when this returns: the callers decode the body in the same turn.
    const account = this.#answers.open();
    try {
      for await (const chunk of res.body) {
        size += (chunk as Buffer).byteLength;
        if (size > MAX_RESPONSE_BYTES) {
          res.body.destroy();
          throw errors.predictorError(this.target, `answer is larger than ${MAX_RESPONSE_BYTES} bytes`);
        }
        if (!account.take((chunk as Buffer).byteLength)) {
          res.body.destroy();
          throw errors.serverBusy(
            `the transformer already holds ${this.#answers.held} bytes of predictor answers (limit --predictor_max_inflight_answer_bytes ${this.#answers.maxBytes})`,
          );
        }
        chunks.push(chunk as Buffer);
      }
      return { status: res.statusCode, headers: flatHeaders(res.headers), body: Buffer.concat(chunks) };
    } finally {
      account.release();
    }
  }

  /** GET `path` answered 2xx within the timeout; never rejects. */
  async ok(path: string): Promise<boolean> {
    try {
      await this.send('GET', path, {}, undefined, undefined);
      return true;
    } catch {
      return false;
    }
  }

  close(): Promise<void> {
    return this.#pool.close();
  }
}

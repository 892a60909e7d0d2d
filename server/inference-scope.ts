/**
 * One inference request's hold on one model version, the only thing transports talk to for
 * inference. `DataPlane.open` looks the model up once and takes its lease; the scope then
 * exposes that version's view to schema-dependent codecs, validates and runs the request
 * against the same version, and times the anchor's stages.
 *
 * Contract:
 * - Order: `decode` (optional), `infer` once, `encode` (optional), then `release`.
 *   Transports call `release` in a `finally`, so the lease ends on every path: success,
 *   error, client cancel or deadline (the backend call itself is never abandoned while the
 *   version could be freed under it, since `infer` awaits it before returning).
 * - Stages: preprocess (`decode`) is recorded only once the inference has run, so requests
 *   that fail before it add no samples; predict and postprocess as they complete.
 * - `release` is idempotent.
 * - Latency log (--enable_latency_logging): when given a logger, `release` writes one line
 *   with the stages' milliseconds of an inference that ran, as KServe's latency log.
 * - Request logger (--logger_url): transports call `logRequest` after `decode` and
 *   `logResponse` after `encode`, with the bytes as they went over the wire; both are
 *   no-ops without a logger and never wait on the sink. The logged id is the response's id.
 * - Headers: `infer` takes the request's headers (REST) or metadata (gRPC); what the model
 *   sets for the response (SDK models) is in `responseHeaders` once `infer` resolved.
 */
import type { Logger } from 'pino';
import { randomUUID } from 'node:crypto';
import { SIGNATURE_PARAMETER, selectSignature } from '../protocols/signature.js';
import type { InferRequest, InferResponse, ModelView, Parameters, SignatureDef } from '../protocols/tensor.js';
import type { InferContext } from './backend.js';
import { type Metrics, since } from './metrics.js';
import type { Lease, ServedVersion } from './repository/model-repository.js';
import { validateRequest } from './validate-request.js';
import type { ClientSignal } from './client-signal.js';
import type { RequestLogger } from './request-logger/request-logger.js';

/** The neutral view of one served version (named signatures only where the model has them). */
export function viewOf(name: string, served: ServedVersion): ModelView {
  const { platform, inputs, outputs, version } = served;
  const signatures = served.instance.signatures;
  return { name, version, platform, inputs, outputs, signatures: signatures?.length ? signatures : undefined };
}

/**
 * The inputs and outputs a request runs against: those of the signature its `signature_name`
 * parameter selects, for models with named signatures; the model's own otherwise.
 */
function signatureOf(model: ModelView, parameters: Parameters | undefined): { io: Pick<SignatureDef, 'inputs' | 'outputs'>; name: string | undefined } {
  if (model.signatures === undefined) return { io: model, name: undefined };
  const sig = selectSignature(model.signatures, parameters?.[SIGNATURE_PARAMETER]);
  return { io: sig, name: sig.name };
}

export class InferenceScope {
  readonly model: ModelView;
  readonly #lease: Lease;
  readonly #metrics: Metrics;
  readonly #latencyLog: Logger | undefined;
  #decodeSeconds: number | undefined;
  #predictSeconds: number | undefined;
  #encodeSeconds: number | undefined;
  #explainSeconds: number | undefined;
  #requestId: string | undefined;
  #released = false;
  readonly #requestLogger: RequestLogger | undefined;
  #logId: string | undefined;
  #logHeaders: Readonly<Record<string, string>> = {};
  /** Headers the model set for the response; filled by `infer`. */
  readonly responseHeaders: Record<string, string> = {};

  constructor(name: string, lease: Lease, metrics: Metrics, latencyLog?: Logger, requestLogger?: RequestLogger) {
    this.#lease = lease;
    this.#requestLogger = requestLogger;
    this.#metrics = metrics;
    this.#latencyLog = latencyLog;
    this.model = viewOf(name, lease.served);
  }

  /** Runs a codec's decode against this version's view, timed as preprocess. */
  decode<D>(fn: (model: ModelView) => D): D {
    const start = performance.now();
    const decoded = fn(this.model);
    this.#decodeSeconds = since(start);
    return decoded;
  }

  /**
   * Resolves the request's signature (the one place it is chosen), validates the request
   * against it and runs it, handing the backend the resolved name. The request's input
   * buffers may be detached by the backend: callers must not read them afterwards. Outputs
   * come back filtered and ordered as requested.
   */
  async infer(request: InferRequest, headers: Readonly<Record<string, string>> = {}, signal?: ClientSignal): Promise<InferResponse> {
    const { name } = this.model;
    const served = this.#lease.served;
    const sig = signatureOf(this.model, request.parameters);
    if (served.instance.validatesOwnInputs !== true) validateRequest(name, request, sig.io.inputs, sig.io.outputs, served.config?.maxBatchSize ?? 0);
    // An empty `outputs` list asks for every output, as in the anchor (`if request_outputs:`).
    const requested = request.outputs !== undefined && request.outputs.length > 0 ? request.outputs : sig.io.outputs;
    const start = performance.now();
    const context: InferContext = { id: request.id, parameters: request.parameters, headers, responseHeaders: this.responseHeaders, signal };
    const outputs = await served.instance.infer(request.inputs, requested.map((o) => o.name), sig.name, context);
    this.#predictSeconds = since(start);
    this.#metrics.observe('predict', name, this.#predictSeconds);
    if (this.#decodeSeconds !== undefined) this.#metrics.observe('preprocess', name, this.#decodeSeconds);
    const id = request.id ?? this.#logId ?? randomUUID();
    this.#requestId = id;
    const response = { id, modelName: name, modelVersion: served.version, outputs };
    return context.responseParameters === undefined ? response : { ...response, parameters: context.responseParameters };
  }

  /**
   * Logs the decoded request's wire bytes as a request event. The bytes are copied only when
   * request events are wanted: a backend may detach the body it was decoded from.
   */
  logRequest(request: InferRequest, body: Uint8Array, contentType: string, headers: Readonly<Record<string, string>>): void {
    const logger = this.#requestLogger;
    if (logger === undefined) return;
    this.#logId = request.id ?? randomUUID();
    this.#logHeaders = headers;
    if (logger.wants('request')) logger.log('request', this.#logId, Uint8Array.prototype.slice.call(body), contentType, headers);
  }

  /** Logs the encoded response (owned by the caller, not changed afterwards) as a response event. */
  logResponse(body: Uint8Array | string, contentType: string): void {
    const logger = this.#requestLogger;
    if (logger === undefined || this.#requestId === undefined || !logger.wants('response')) return;
    logger.log('response', this.#requestId, typeof body === 'string' ? Buffer.from(body, 'utf8') : body, contentType, this.#logHeaders);
  }

  /** Whether this version explains (ModelInstance.explain). */
  get explains(): boolean {
    return this.#lease.served.instance.explain !== undefined;
  }

  /**
   * Validates the request as `infer` does and explains it, timed as the explain stage. Only
   * for a version that `explains`; the result is the response document.
   */
  async explain(request: InferRequest, headers: Readonly<Record<string, string>> = {}): Promise<unknown> {
    const { name } = this.model;
    const instance = this.#lease.served.instance;
    if (instance.explain === undefined) throw new Error(`model ${name} does not explain`);
    if (instance.validatesOwnInputs !== true) validateRequest(name, request, this.model.inputs, this.model.outputs, this.#lease.served.config?.maxBatchSize ?? 0);
    const start = performance.now();
    const context = { id: request.id, parameters: request.parameters, headers, responseHeaders: this.responseHeaders };
    const result = await instance.explain(request.inputs, context);
    this.#explainSeconds = since(start);
    this.#requestId = request.id;
    this.#metrics.observe('explain', name, this.#explainSeconds);
    return result;
  }

  /** Runs a codec's encode, timed as postprocess. */
  encode<T>(fn: () => T): T {
    const start = performance.now();
    const encoded = fn();
    this.#encodeSeconds = since(start);
    this.#metrics.observe('postprocess', this.model.name, this.#encodeSeconds);
    return encoded;
  }

  release(): void {
    this.#lease.release();
    if (this.#released) return;
    this.#released = true;
    if (this.#latencyLog !== undefined && (this.#predictSeconds !== undefined || this.#explainSeconds !== undefined)) this.#logLatency(this.#latencyLog);
  }

  /** KServe's line: requestId, preprocess_ms, explain_ms, predict_ms, postprocess_ms. */
  #logLatency(log: Logger): void {
    const ms = (s: number | undefined) => (s === undefined ? undefined : Math.round(s * 1e6) / 1e3);
    log.info(
      {
        requestId: this.#requestId,
        model: this.model.name,
        preprocess_ms: ms(this.#decodeSeconds),
        explain_ms: ms(this.#explainSeconds),
        predict_ms: ms(this.#predictSeconds),
        postprocess_ms: ms(this.#encodeSeconds),
      },
      'latency',
    );
  }
}

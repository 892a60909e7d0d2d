/**
 * One predictor client per wire protocol, behind this interface; the registry
 * (predictor-clients.ts) makes the one `--predictor_protocol` names.
 *
 * Contract:
 * - `infer` sends one request and resolves with the predictor's outputs, or rejects with a
 *   catalogue error: PredictorUnreachable (502 / UNAVAILABLE), PredictorTimeout (504 /
 *   DEADLINE_EXCEEDED), PredictorError (502 / INTERNAL: a 5xx of the predictor's own, or an
 *   answer that is not its protocol); a predictor's 4xx (or gRPC INVALID_ARGUMENT,
 *   NOT_FOUND, ...) keeps its status through the matching kind and its message.
 * - Attempts: 1 + retries, each within the timeout; another attempt only after a failure the
 *   predictor certainly did not act on (retry-policy.ts).
 * - `signal`: once the client of the transformer's request is gone, the forwarded call is
 *   aborted (HTTP request destroyed, gRPC call cancelled) and `infer` rejects Cancelled.
 * - Connections are pooled and kept alive across calls; `close` releases them.
 */
import type { Parameters, RequestedOutput, Tensor } from '../../protocols/tensor.js';
import type { ClientSignal } from '../client-signal.js';
import type { PredictorConfig } from './predictor-config.js';

export interface ForwardRequest {
  /** The model name sent to the predictor: the transformer's own (as KServe's). */
  readonly modelName: string;
  readonly id: string | undefined;
  readonly parameters: Parameters | undefined;
  readonly inputs: readonly Tensor[];
  /** Outputs to ask for; empty = all. */
  readonly outputs: readonly RequestedOutput[];
  /** Headers sent on (already filtered to what is forwarded, forward-headers.ts). */
  readonly headers: Readonly<Record<string, string>>;
  readonly signal: ClientSignal | undefined;
}

export interface ForwardResponse {
  readonly modelName: string;
  readonly id: string | undefined;
  readonly parameters: Parameters | undefined;
  readonly outputs: Tensor[];
  /** The predictor's response headers (REST) or initial metadata (gRPC), lower-case names. */
  readonly headers: Readonly<Record<string, string>>;
}

export interface PredictorClient {
  infer(request: ForwardRequest): Promise<ForwardResponse>;
  /** The predictor's server readiness (V1 `GET /`, V2 `GET /v2/health/ready`, gRPC ServerReady); never rejects. */
  ready(): Promise<boolean>;
  close(): Promise<void>;
}

export type PredictorClientFactory = (config: Required<PredictorConfig>) => PredictorClient;

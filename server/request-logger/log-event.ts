/**
 * One logged request or response, and the binary-mode CloudEvent headers KServe's agent
 * logger (pkg/logger) posts for it: type org.kubeflow.serving.inference.request|response,
 * id = the request id, the ISVC identity as extensions, `metadata` = JSON of the carried
 * request headers (name → values), the body as it went over the wire.
 */
import type { RequestLoggerConfig } from './flags.js';

export const REQUEST_EVENT_TYPE = 'org.kubeflow.serving.inference.request';
export const RESPONSE_EVENT_TYPE = 'org.kubeflow.serving.inference.response';

export type LogKind = 'request' | 'response';

export interface LogEvent {
  readonly kind: LogKind;
  readonly id: string;
  /** Owned by the event: callers copy bodies a backend may detach. */
  readonly body: Uint8Array;
  readonly contentType: string;
  readonly metadata: Readonly<Record<string, readonly string[]>>;
  /** When it was logged (ISO 8601): the event's `time`, not when it was sent. */
  readonly time: string;
}

export function eventHeaders(event: LogEvent, config: RequestLoggerConfig): Record<string, string> {
  return {
    'ce-specversion': '1.0',
    'ce-id': event.id,
    'ce-type': event.kind === 'request' ? REQUEST_EVENT_TYPE : RESPONSE_EVENT_TYPE,
    'ce-source': config.sourceUri,
    'ce-time': event.time,
    'ce-inferenceservicename': config.inferenceService,
    'ce-namespace': config.namespace,
    'ce-component': config.component,
    'ce-endpoint': config.endpoint,
    'ce-metadata': JSON.stringify(event.metadata),
    'content-type': event.contentType,
  };
}

/** The configured headers of a request, as the `metadata` extension carries them. */
export function metadataOf(names: readonly string[], headers: Readonly<Record<string, string>>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const name of names) {
    const value = headers[name];
    if (value !== undefined) out[name] = [value];
  }
  return out;
}

/**
 * AdmissionReview (`admission.k8s.io/v1`) as far as the webhooks use it, and the one place
 * that turns a handler's verdict into a response. Client-node has no types for it: the
 * API server only ever sends it to webhooks.
 */
import type { JsonPatchOperation } from './json-patch.js';
import { type Shape, shapeProblems } from './object-shape.js';

export const ADMISSION_API_VERSIONS = ['admission.k8s.io/v1', 'admission.k8s.io/v1beta1'] as const;

export type Operation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

export interface AdmissionRequest {
  uid: string;
  kind: GroupVersionKind;
  resource?: { group: string; version: string; resource: string };
  name?: string;
  namespace?: string;
  operation: Operation;
  userInfo?: { username?: string; uid?: string; groups?: string[] };
  /** The object as it will be stored (absent on DELETE). */
  object?: unknown;
  /** The stored object before this UPDATE or DELETE. */
  oldObject?: unknown;
  dryRun?: boolean;
}

export interface AdmissionStatus {
  code: number;
  reason?: string;
  message: string;
}

export interface AdmissionResponse {
  uid: string;
  allowed: boolean;
  status?: AdmissionStatus;
  patchType?: 'JSONPatch';
  /** Base64 of the JSON patch. */
  patch?: string;
  warnings?: string[];
}

export interface AdmissionReview {
  apiVersion: string;
  kind: 'AdmissionReview';
  request?: AdmissionRequest;
  response?: AdmissionResponse;
}

/** What a handler decides; the server adds the request uid. */
export type Verdict = { allowed: true; patch?: JsonPatchOperation[]; warnings?: string[] } | { allowed: false; status: AdmissionStatus };

/** One webhook: decides on a request; may throw a `WebhookError` to reject with its message. */
export type AdmissionHandler = (request: AdmissionRequest) => Promise<Verdict>;

export const allow = (patch?: JsonPatchOperation[]): Verdict => (patch && patch.length > 0 ? { allowed: true, patch } : { allowed: true });

/**
 * A rejection. 403 Forbidden is what controller-runtime's validators answer (KServe's
 * webhooks), 400 a request the webhook could not read, 500 a failure inside the webhook.
 */
export function deny(code: 400 | 403 | 500, message: string): Verdict {
  const reason = code === 400 ? 'BadRequest' : code === 403 ? 'Forbidden' : 'InternalError';
  return { allowed: false, status: { code, reason, message } };
}

export function toResponse(uid: string, verdict: Verdict): AdmissionResponse {
  if (!verdict.allowed) return { uid, allowed: false, status: verdict.status };
  const response: AdmissionResponse = { uid, allowed: true };
  if (verdict.patch && verdict.patch.length > 0) {
    response.patchType = 'JSONPatch';
    response.patch = Buffer.from(JSON.stringify(verdict.patch)).toString('base64');
  }
  if (verdict.warnings && verdict.warnings.length > 0) response.warnings = verdict.warnings;
  return response;
}

/** A body that is not an AdmissionReview the webhooks can answer. */
export class BadAdmissionReview extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BadAdmissionReview';
  }
}

/** Checks the shape the handlers rely on; anything else is the caller's 400. */
export function parseAdmissionReview(body: unknown): AdmissionReview & { request: AdmissionRequest } {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new BadAdmissionReview('body must be a JSON AdmissionReview object');
  }
  const review = body as Partial<AdmissionReview>;
  if (review.kind !== 'AdmissionReview') throw new BadAdmissionReview(`kind must be 'AdmissionReview', got '${String(review.kind)}'`);
  if (!ADMISSION_API_VERSIONS.includes(review.apiVersion as (typeof ADMISSION_API_VERSIONS)[number])) {
    throw new BadAdmissionReview(`apiVersion must be one of ${ADMISSION_API_VERSIONS.join(', ')}, got '${String(review.apiVersion)}'`);
  }
  const request = review.request;
  if (!request || typeof request !== 'object' || Array.isArray(request)) throw new BadAdmissionReview('request is missing or not an object');
  if (typeof request.uid !== 'string' || request.uid === '') throw new BadAdmissionReview('request.uid must be a non-empty string');
  if (request.namespace !== undefined && typeof request.namespace !== 'string') throw new BadAdmissionReview('request.namespace must be a string');
  if (request.name !== undefined && typeof request.name !== 'string') throw new BadAdmissionReview('request.name must be a string');
  if (request.kind !== undefined && (request.kind === null || typeof request.kind !== 'object' || typeof request.kind.kind !== 'string')) {
    throw new BadAdmissionReview('request.kind must be a {group, version, kind} object');
  }
  if (!['CREATE', 'UPDATE', 'DELETE', 'CONNECT'].includes(request.operation)) {
    throw new BadAdmissionReview(`request.operation '${String(request.operation)}' is not one of CREATE, UPDATE, DELETE, CONNECT`);
  }
  return review as AdmissionReview & { request: AdmissionRequest };
}

/**
 * The request's object when the handler needs one, checked against `shape` (object-shape.ts):
 * a missing or non-object value, or a field of the wrong JSON type, is a 400 naming the field.
 * `kind` is what the handler serves (Pod, InferenceService): the message names it, never the
 * `request.kind` a caller wrote, which need not match the path it posted to.
 */
export function requestObject<T>(request: AdmissionRequest, field: 'object' | 'oldObject', shape: Shape, kind: string): T {
  const value = request[field];
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new BadAdmissionReview(`request.${field} must be a JSON object`);
  }
  const problems = shapeProblems(value, shape, '');
  if (problems.length > 0) throw new BadAdmissionReview(`${kind} ${field === 'oldObject' ? '(old) ' : ''}is malformed: ${problems.join('; ')}`);
  return value as T;
}

/**
 * Request helpers for REST tests against a real server: plain fetch calls that keep the raw
 * response bytes, builders for V2 binary-extension bodies, a splitter for binary responses,
 * and one assertion for the `{"error": ...}` body every failure must carry.
 */
import { expect } from 'vitest';

export const HEADER_LENGTH = 'inference-header-content-length';

export interface HttpResult {
  readonly status: number;
  readonly headers: Headers;
  /** Raw body bytes, exactly as sent by the server. */
  readonly bytes: Buffer;
  readonly text: string;
}

async function collect(res: Response): Promise<HttpResult> {
  const bytes = Buffer.from(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, bytes, text: bytes.toString('utf8') };
}

export async function get(url: string): Promise<HttpResult> {
  return collect(await fetch(url));
}

/** POSTs a body as is: a string or bytes (objects are JSON-encoded). */
export async function post(url: string, body?: string | Uint8Array | object, headers: Record<string, string> = {}): Promise<HttpResult> {
  const payload = body === undefined || typeof body === 'string' || body instanceof Uint8Array ? body : JSON.stringify(body);
  const h = typeof body === 'object' && !(body instanceof Uint8Array) ? { 'content-type': 'application/json', ...headers } : headers;
  return collect(await fetch(url, { method: 'POST', headers: h, body: payload }));
}

export function json(r: HttpResult): unknown {
  return JSON.parse(r.text) as unknown;
}

/**
 * Asserts a failure: the status, a JSON content type, a body that is exactly `{"error": msg}`
 * with a non-empty message, and no stack trace. Returns the message.
 */
export function expectError(r: HttpResult, status: number, message?: string | RegExp): string {
  expect({ status: r.status, body: r.text }).toMatchObject({ status });
  expect(r.headers.get('content-type')).toMatch(/^application\/json/);
  const body = JSON.parse(r.text) as Record<string, unknown>;
  expect(Object.keys(body)).toEqual(['error']);
  const msg = body['error'];
  expect(typeof msg).toBe('string');
  expect((msg as string).length).toBeGreaterThan(0);
  expect(msg).not.toMatch(/\n\s+at |\.ts:\d+|\.js:\d+/);
  if (message !== undefined) expect(msg).toMatch(message);
  return msg as string;
}

/** Raw bytes of a typed array (a view, no copy). */
export function bytesOf(a: ArrayBufferView): Uint8Array {
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
}

/** Raw BYTES tensor encoding: each element a 4-byte little-endian length and its bytes. */
export function bytesTensor(elements: readonly (string | Uint8Array)[]): Uint8Array {
  const parts = elements.map((e) => (typeof e === 'string' ? Buffer.from(e, 'utf8') : Buffer.from(e)));
  const out = Buffer.alloc(parts.reduce((n, p) => n + 4 + p.byteLength, 0));
  let off = 0;
  for (const p of parts) {
    out.writeUInt32LE(p.byteLength, off);
    p.copy(out, off + 4);
    off += 4 + p.byteLength;
  }
  return out;
}

/** A V2 binary-extension body: the JSON header followed by `raws` in order. */
export function binaryBody(header: object, raws: readonly Uint8Array[]): { body: Buffer; headerLength: number } {
  const head = Buffer.from(JSON.stringify(header), 'utf8');
  return { body: Buffer.concat([head, ...raws]), headerLength: head.byteLength };
}

/** POSTs a binary-extension body with its Inference-Header-Content-Length. */
export async function postBinary(url: string, header: object, raws: readonly Uint8Array[]): Promise<HttpResult> {
  const { body, headerLength } = binaryBody(header, raws);
  return post(url, body, { [HEADER_LENGTH]: String(headerLength), 'content-type': 'application/octet-stream' });
}

export interface ResponseOutput {
  name: string;
  shape: number[];
  datatype: string;
  parameters?: Record<string, unknown> | null;
  data?: unknown[];
}

export interface SplitResponse {
  readonly header: { id: string; model_name: string; model_version: string | null; outputs: ResponseOutput[] };
  /** Header bytes exactly as sent. */
  readonly headerText: string;
  /** Raw bytes of each binary output, by name. */
  readonly raw: Map<string, Buffer>;
}

/** Splits a binary-extension response at its Inference-Header-Content-Length. */
export function splitBinaryResponse(r: HttpResult): SplitResponse {
  const lenHeader = r.headers.get(HEADER_LENGTH);
  expect(lenHeader).toMatch(/^\d+$/);
  const len = Number(lenHeader);
  const headerText = r.bytes.subarray(0, len).toString('utf8');
  const header = JSON.parse(headerText) as SplitResponse['header'];
  const raw = new Map<string, Buffer>();
  let off = len;
  for (const o of header.outputs) {
    const size = o.parameters?.['binary_data_size'];
    if (typeof size !== 'number') continue;
    raw.set(o.name, r.bytes.subarray(off, off + size));
    off += size;
  }
  expect(off).toBe(r.bytes.byteLength);
  return { header, headerText, raw };
}

/** Reads a Prometheus sample value (0 when absent). `labels` must match exactly, in any order. */
export function metricValue(text: string, name: string, labels: Record<string, string>): number {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const m = /^[^{ ]+(?:\{(.*)\})? (\S+)$/.exec(line);
    if (m === null) continue;
    const found = new Map<string, string>();
    for (const pair of (m[1] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) found.set(pair[1] as string, pair[2] as string);
    const want = Object.entries(labels);
    if (found.size === want.length && want.every(([k, v]) => found.get(k) === v)) return Number(m[2]);
  }
  return 0;
}

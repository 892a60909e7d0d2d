// The subset of `k6/http` the scripts use: get, post and request, with k6's Response shape
// (status, body as text or ArrayBuffer for responseType 'binary', canonical header names,
// json(selector) with gjson-style dotted paths).
import { call, results } from './bridge.mjs';

class Response {
  constructor(answer) {
    this.status = answer.status;
    this.headers = answer.headers;
    this.body = answer.body;
    this.error = answer.error ?? '';
  }

  json(selector) {
    let v = JSON.parse(typeof this.body === 'string' ? this.body : new TextDecoder().decode(this.body));
    if (selector === undefined) return v;
    for (const part of String(selector).split('.')) {
      if (v === null || v === undefined) return undefined;
      v = v[/^\d+$/.test(part) ? Number(part) : part];
    }
    return v;
  }
}

export function request(method, url, body, params = {}) {
  let payload = body ?? null;
  if (payload !== null && typeof payload === 'object' && !(payload instanceof ArrayBuffer)) {
    payload = new URLSearchParams(payload).toString(); // k6 form-encodes objects
  }
  const answer = call({ kind: 'http', method, url, body: payload, headers: params.headers ?? {}, binary: params.responseType === 'binary' });
  results.counters.http_reqs += 1;
  // k6's default expected statuses are 200–399.
  if (!(answer.status >= 200 && answer.status < 400)) results.counters.http_req_failed += 1;
  return new Response(answer);
}

export const get = (url, params) => request('GET', url, null, params);
export const post = (url, body, params) => request('POST', url, body, params);
export default { request, get, post };

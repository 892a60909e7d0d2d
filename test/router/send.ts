/** Sends one graph request to a router with node:http (any method may carry a body) and reads the whole answer. */
import http from 'node:http';
import type { GraphRequest } from './graph-cases.js';

export interface Answer {
  readonly status: number;
  readonly contentType: string | undefined;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: Buffer;
}

export function send(base: string, req: GraphRequest | { method?: string; path?: string; body: Buffer | string; headers?: Record<string, string> }): Promise<Answer> {
  const url = new URL(req.path ?? '/', base);
  return new Promise((resolve, reject) => {
    const r = http.request(url, { method: req.method ?? 'POST', headers: { ...req.headers }, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, contentType: res.headers['content-type'], headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    r.on('error', reject);
    r.end(req.body);
  });
}

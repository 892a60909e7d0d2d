/**
 * Probes and metrics for the controller process: `/healthz` (the process answers),
 * `/readyz` (ready() says so: webhook server up, caches synced when leading) and
 * `/metrics`. Built here, bound only by the entry point.
 */
import { type Server, createServer } from 'node:http';
import type { Registry } from 'prom-client';

export function createHealthServer(ready: () => boolean, registry: Registry): Server {
  return createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET') {
      res.writeHead(405, { allow: 'GET' }).end();
      return;
    }
    if (path === '/healthz') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    } else if (path === '/readyz') {
      const ok = ready();
      res.writeHead(ok ? 200 : 503, { 'content-type': 'text/plain' }).end(ok ? 'ok' : 'not ready');
    } else if (path === '/metrics') {
      registry.metrics().then(
        (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
        (err: unknown) => res.writeHead(500).end(String(err)),
      );
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    }
  });
}

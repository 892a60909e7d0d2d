/**
 * --logger_url may carry credentials (user info, a token in the query): the request
 * logger's warning about undelivered events names the sink without them (#27 item 8).
 */
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { expect, it } from 'vitest';
import { parseServeArgs } from '../../server/config.js';
import { createServer, defaultBackends } from '../../server/server.js';
import { IRIS_DIR } from '../helpers/server.js';

it('the warning names the sink as scheme, host and path: no user info, no query values', async () => {
  // A port that refuses connections: every event fails and the first failure is logged.
  const closed = createHttpServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const { port } = closed.address() as AddressInfo;
  await new Promise((resolve) => closed.close(resolve));

  const lines: string[] = [];
  let onLine = () => {};
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      onLine();
      done();
    },
  });
  const loggerUrl = `http://kserve:Pa55-user-secret@127.0.0.1:${port}/events?token=tok-query-secret&sig=sig-query-secret`;
  const backends = defaultBackends();
  const { config } = parseServeArgs(
    ['--model_name', 'iris', '--model_dir', IRIS_DIR, '--http_port', '0', '--enable_grpc', 'false', '--logger_url', loggerUrl, '--logger_mode', 'request'],
    {},
    backends.flags(),
  );
  const server = await createServer(config, pino({ level: 'info' }, sink), { backends, defaultMetrics: false });
  try {
    await server.http.listen({ host: '127.0.0.1', port: 0 });
    await server.repository.loadStartupModels();
    const { port: rest } = server.http.server.address() as AddressInfo;
    const warned = new Promise<void>((resolve) => {
      onLine = () => {
        if (lines.some((l) => l.includes('events dropped or not delivered'))) resolve();
      };
    });
    const r = await fetch(`http://127.0.0.1:${rest}/v1/models/iris:predict`, { method: 'POST', body: JSON.stringify({ instances: [[6.8, 2.8, 4.8, 1.4]] }) });
    expect(r.status).toBe(200);
    await warned;
    const warning = JSON.parse(lines.find((l) => l.includes('events dropped or not delivered')) as string) as Record<string, unknown>;
    expect(warning['url']).toBe(`http://127.0.0.1:${port}/events?[redacted]`);
    expect(lines.filter((l) => /Pa55-user-secret|tok-query-secret|sig-query-secret/.test(l))).toEqual([]);
  } finally {
    await server.close();
  }
});

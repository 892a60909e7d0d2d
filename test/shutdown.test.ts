/**
 * Graceful shutdown as a Kubernetes rolling update needs it (#16): clients keep sending REST
 * and gRPC inferences (bounded loops) while the CLI gets SIGTERM. Readiness turns false at
 * once, requests are still served for --shutdown_delay_seconds, then new connections are
 * refused; no request the server accepted fails (REST: every answer is 200, the only errors
 * a refused connection or one reset from the accept queue as the listener closed, each a
 * loop's last; gRPC: OK, or UNAVAILABLE before the call reached the server), and the
 * process exits 0 within the grace period.
 *
 * Ordered by events, not sleeps: SIGTERM once every loop has had an answer; the request that
 * shows the delay at work is sent once readiness has turned false (the delay only has to
 * outlast two loopback round trips).
 */
import http from 'node:http';
import { afterAll, expect, it } from 'vitest';
import { grpc, grpcClient } from './grpc/client.js';
import { restPort, runCli } from './helpers/process.js';
import { makeRepository } from './helpers/server.js';
import { waitFor } from './helpers/wait-for.js';

const repo = makeRepository({ slow: 'slow_matmul' });
afterAll(() => repo.cleanup());

const ROWS = 64;
const LOOP_MAX = 300;

/** GET on a fresh connection: the status, or the error code. */
function restGet(port: number, path: string): Promise<string> {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(String(res.statusCode)));
    });
    req.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
  });
}

/** One REST inference on a fresh connection (as kube-proxy'd clients and probes do). */
function restInfer(port: number): Promise<string> {
  const head = Buffer.from(JSON.stringify({ inputs: [{ name: 'X', datatype: 'FP32', shape: [ROWS, 1024], parameters: { binary_data_size: ROWS * 4096 } }] }));
  const body = Buffer.concat([head, Buffer.from(new Float32Array(ROWS * 1024).fill(1).buffer)]);
  return new Promise((resolve) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: '/v2/models/slow/infer',
        method: 'POST',
        agent: false,
        headers: { 'inference-header-content-length': String(head.byteLength), 'content-length': body.byteLength, connection: 'close' },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(String(res.statusCode)));
        res.on('error', (e: NodeJS.ErrnoException) => resolve(`response ${e.code ?? e.message}`));
      },
    );
    req.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
    req.end(body);
  });
}

it('SIGTERM during bounded REST and gRPC client loops: no accepted request fails, exit 0', async () => {
  const p = runCli([
    'serve',
    '--model_repository',
    repo.dir,
    '--http_host',
    '127.0.0.1',
    '--http_port',
    '0',
    '--grpc_port',
    '0',
    '--intra_op_threads',
    '1',
    '--shutdown_delay_seconds',
    '3',
    '--grace_period_seconds',
    '20',
  ]);
  const port = await restPort(p);
  const grpcLine = await p.waitForLog((l) => l['msg'] === 'gRPC server listening');
  await p.waitForLog((l) => l['msg'] === 'server started');
  const c = grpcClient(`127.0.0.1:${String(grpcLine['port'])}`);
  let signalled = false;
  let answered = 0;
  const record = (o: string, i: number) => {
    if (i === 0) answered++;
    return o;
  };
  const restLoop = async () => {
    const out: string[] = [];
    for (let i = 0; i < LOOP_MAX; i++) {
      const o = record(await restInfer(port), i);
      out.push(o);
      // Refused: the listener is closed. Reset: the connection was still in the kernel's
      // accept queue when the listener closed (never accepted by the server, nothing ran);
      // the shutdown delay is what keeps real traffic from meeting either.
      if (o === 'ECONNREFUSED' || o === 'ECONNRESET') {
        expect(signalled).toBe(true);
        break;
      }
    }
    return out;
  };
  const grpcLoop = async () => {
    const out: string[] = [];
    for (let i = 0; i < LOOP_MAX; i++) {
      const o = record(
        await c
          .infer({
            model_name: 'slow',
            inputs: [{ name: 'X', datatype: 'FP32', shape: [String(ROWS), '1024'] }],
            raw_input_contents: [Buffer.from(new Float32Array(ROWS * 1024).fill(1).buffer)],
          })
          .then(
            (r) => (r.outputs[0]?.shape.join(',') === `${ROWS},1024` ? 'OK' : 'wrong answer'),
            (e: grpc.ServiceError) => `${e.code} ${e.details}`,
          ),
        i,
      );
      out.push(o);
      if (o.startsWith(`${grpc.status.UNAVAILABLE} `)) break;
    }
    return out;
  };
  try {
    const loops = [restLoop(), restLoop(), grpcLoop(), grpcLoop()];
    // Every loop is running: each has had its first answer.
    await waitFor(() => answered === loops.length, { intervalMs: 10, description: 'an answer in every loop' });
    signalled = true;
    p.child.kill('SIGTERM');
    // Readiness turns false at once; a request sent after that is still served (the delay).
    const readiness = await waitFor(() => restGet(port, '/v2/health/ready'), { until: (s) => s !== '200', intervalMs: 10, description: 'readiness to turn false' });
    const duringDelay = await restInfer(port);
    const results = (await Promise.all(loops)).flat();
    expect(await p.exited).toBe(0);
    const summary = new Map<string, number>();
    for (const o of results) summary.set(o.replace(/^14 .*/, '14 UNAVAILABLE'), (summary.get(o.replace(/^14 .*/, '14 UNAVAILABLE')) ?? 0) + 1);
    console.log(`shutdown: ${results.length} requests, outcomes ${JSON.stringify(Object.fromEntries(summary))}`);
    // REST: answered 200, or refused before it was accepted. gRPC: OK, or UNAVAILABLE (not accepted).
    expect(results.filter((o) => !['200', 'ECONNREFUSED', 'ECONNRESET', 'OK'].includes(o) && !o.startsWith(`${grpc.status.UNAVAILABLE} `))).toEqual([]);
    // The delay kept serving after readiness turned false.
    expect([readiness, duringDelay]).toEqual(['503', '200']);
    expect(p.output()).toContain('shutdown complete');
  } finally {
    c.close();
    p.child.kill('SIGKILL');
  }
}, 120_000);

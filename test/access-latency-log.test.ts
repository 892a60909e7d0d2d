/**
 * KServe's logging flags on the real CLI: `--access_log_format` / `--enable_access_log`
 * (uvicorn's access lines, gunicorn atoms) and `--enable_latency_logging` (one line per
 * inference with its stages' milliseconds), and what is never logged.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type CliProcess, runCli, restPort } from './helpers/process.js';
import { IRIS_DIR } from './helpers/server.js';

const LOOPBACK = ['--http_host', '127.0.0.1', '--http_port', '0', '--grpc_port', '0', '--enable_grpc', 'false'];
const IRIS = ['--model_name', 'iris', '--model_dir', IRIS_DIR];
const ROW = JSON.stringify({ instances: [[5.1, 3.5, 1.4, 0.2]] });

async function serve(flags: string[]): Promise<{ p: CliProcess; base: string }> {
  const p = runCli(['serve', ...IRIS, ...LOOPBACK, ...flags]);
  running.push(p);
  const port = await restPort(p);
  await p.waitForLog((l) => l['msg'] === 'server started');
  return { p, base: `http://127.0.0.1:${port}` };
}

const running: CliProcess[] = [];
afterEach(async () => {
  for (const p of running.splice(0)) {
    p.child.kill('SIGTERM');
    await p.exited;
  }
});

const linesOf = (p: CliProcess, component: string): Record<string, unknown>[] =>
  p
    .output()
    .split('\n')
    .flatMap((l) => {
      try {
        const v = JSON.parse(l) as Record<string, unknown>;
        return v['component'] === component ? [v] : [];
      } catch {
        return [];
      }
    });

describe('access log', () => {
  it('writes uvicorn-style lines by default format, never the query string', async () => {
    const { p, base } = await serve(['--enable_access_log']);
    const res = await fetch(`${base}/v1/models/iris:predict?token=sekrit`, { method: 'POST', body: ROW, headers: { authorization: 'Bearer sekrit' } });
    expect(res.status).toBe(200);
    expect((await fetch(`${base}/v2/models/nope`)).status).toBe(404);
    const line = await p.waitForLog((l) => l['component'] === 'access' && String(l['msg']).includes('/v2/models/nope'));
    expect(line['msg']).toMatch(/^127\.0\.0\.1:\d+ - "GET \/v2\/models\/nope HTTP\/1\.1" 404$/);
    const access = linesOf(p, 'access').map((l) => String(l['msg']));
    expect(access.some((m) => /^127\.0\.0\.1:\d+ - "POST \/v1\/models\/iris:predict HTTP\/1\.1" 200$/.test(m))).toBe(true);
    expect(p.output()).not.toContain('sekrit');
  });

  it('renders gunicorn atoms, request and response headers, and redacts credentials', async () => {
    const format = '%(m)s %(U)s %(s)s %(st)s %(b)s %(M)sms "%(a)s" %({x-request-id}i)s %({content-type}o)s %({authorization}i)s %%';
    const { p, base } = await serve(['--access_log_format', format]);
    const res = await fetch(`${base}/v1/models/iris:predict`, {
      method: 'POST',
      body: ROW,
      headers: { 'user-agent': 'probe/1.0', 'x-request-id': 'req-42', authorization: 'Bearer sekrit' },
    });
    const body = await res.text();
    const line = await p.waitForLog((l) => l['component'] === 'access');
    expect(line['msg']).toMatch(new RegExp(`^POST /v1/models/iris:predict 200 OK ${Buffer.byteLength(body)} \\d+ms "probe/1\\.0" req-42 application/json \\[redacted\\] %$`));
    expect(p.output()).not.toContain('sekrit');
  });

  it('refuses an unknown atom, and the query-string atom, at start-up', async () => {
    const bad = runCli(['serve', ...IRIS, ...LOOPBACK, '--access_log_format', '%(h)s %(zz)s']);
    expect(await bad.exited).not.toBe(0);
    expect(bad.output()).toContain('--access_log_format: unsupported atom %(zz)s');
    const query = runCli(['serve', ...IRIS, ...LOOPBACK, '--access_log_format', '%(q)s']);
    expect(await query.exited).not.toBe(0);
    expect(query.output()).toContain('query strings may carry credentials');
  });

  it('is off unless asked for', async () => {
    const { p, base } = await serve([]);
    expect((await fetch(`${base}/v1/models/iris:predict`, { method: 'POST', body: ROW })).status).toBe(200);
    // A second request whose answer arrives after the first one's onResponse hook ran.
    expect((await fetch(`${base}/v2/health/ready`)).status).toBe(200);
    expect(linesOf(p, 'access')).toEqual([]);
    expect(linesOf(p, 'latency')).toEqual([]);
  });
});

describe('latency log', () => {
  it("logs each inference's stages in milliseconds under its request id, as KServe", async () => {
    const { p, base } = await serve(['--enable_latency_logging']);
    const v2 = {
      id: 'lat-1',
      inputs: [{ name: 'input', shape: [1, 4], datatype: 'FP32', data: [5.1, 3.5, 1.4, 0.2] }],
    };
    const res = await fetch(`${base}/v2/models/iris/infer`, { method: 'POST', body: JSON.stringify(v2), headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(200);
    const line = await p.waitForLog((l) => l['component'] === 'latency' && l['requestId'] === 'lat-1');
    expect(line['model']).toBe('iris');
    expect(line['msg']).toBe('latency');
    for (const stage of ['preprocess_ms', 'predict_ms', 'postprocess_ms']) {
      expect(typeof line[stage]).toBe('number');
      expect(line[stage] as number).toBeGreaterThanOrEqual(0);
    }
    // A request that fails validation never ran: no latency line for it.
    const bad = await fetch(`${base}/v2/models/iris/infer`, {
      method: 'POST',
      body: JSON.stringify({ id: 'lat-bad', inputs: [{ name: 'nope', shape: [1], datatype: 'FP32', data: [1] }] }),
      headers: { 'content-type': 'application/json' },
    });
    expect(bad.status).toBe(400);
    expect((await fetch(`${base}/v1/models/iris:predict`, { method: 'POST', body: ROW })).status).toBe(200);
    await p.waitForLog((l) => l['component'] === 'latency' && l['requestId'] !== 'lat-1');
    expect(linesOf(p, 'latency').some((l) => l['requestId'] === 'lat-bad')).toBe(false);
  });
});

/**
 * --enable_predictor_health_check: the transformer's model and server readiness follow its
 * predictor's (V2: GET /v2/health/ready at the predictor), probed in the background, while
 * inference never waits for a probe. The predictor is a tiny real HTTP server whose
 * readiness the test switches; without the flag the transformer is ready regardless.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get } from '../helpers/http.js';
import { ROOT, type TestServer, startServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait-for.js';

const MODULE = path.join(ROOT, 'examples/transformer/iris-transformer.ts');

let predictorReady = true;
let probes = 0;
let predictor: Server;
let host: string;

beforeAll(async () => {
  predictor = createServer((req, res) => {
    if (req.url === '/v2/health/ready') probes++;
    res.statusCode = req.url === '/v2/health/ready' && predictorReady ? 200 : 503;
    res.end(JSON.stringify(req.url === '/v2/health/ready' ? { ready: predictorReady } : { error: 'not ready' }));
  });
  await new Promise<void>((r) => predictor.listen(0, '127.0.0.1', r));
  host = `127.0.0.1:${(predictor.address() as AddressInfo).port}`;
});
afterAll(async () => {
  predictor.closeAllConnections();
  await new Promise((r) => predictor.close(r));
});

/**
 * Polls `url` until it answers `status`. The transformer probes its predictor once a second
 * (HEALTH_POLL_MS); the bound is far above that and only fails as a timeout.
 */
async function until(url: string, status: number): Promise<number> {
  return waitFor(async () => (await get(url)).status, { until: (s) => s === status, intervalMs: 50, description: `${url} to answer ${status}` });
}

// In worker mode (--model_module_worker) the model's `healthy()` runs in its thread, polled as a job.
describe.each([
  ['with --enable_predictor_health_check', []],
  ['with --enable_predictor_health_check and --model_module_worker', ['--model_module_worker']],
])('%s', (_name, extra) => {
  let transformer: TestServer;
  beforeAll(async () => {
    transformer = await startServer([
      '--model_name',
      'iris',
      '--model_module',
      MODULE,
      '--predictor_host',
      host,
      '--predictor_protocol',
      'v2',
      '--enable_predictor_health_check',
      ...extra,
    ]);
  });
  afterAll(() => transformer?.close());

  it('is ready while the predictor is, not ready while it is not, and ready again after', async () => {
    predictorReady = true;
    expect(await until(`${transformer.url}/v2/models/iris/ready`, 200)).toBe(200);
    expect((await get(`${transformer.url}/v2/health/ready`)).status).toBe(200);
    predictorReady = false;
    expect(await until(`${transformer.url}/v2/models/iris/ready`, 503)).toBe(503);
    expect((await get(`${transformer.url}/v2/health/ready`)).status).toBe(503);
    expect((await get(`${transformer.url}/v2/health/live`)).status).toBe(200);
    predictorReady = true;
    expect(await until(`${transformer.url}/v2/models/iris/ready`, 200)).toBe(200);
    expect(probes).toBeGreaterThanOrEqual(3);
  });
});

describe('without the flag', () => {
  it('is ready whatever the predictor says, and never probes it', async () => {
    predictorReady = false;
    const before = probes;
    const transformer = await startServer(['--model_name', 'iris', '--model_module', MODULE, '--predictor_host', host, '--predictor_protocol', 'v2']);
    try {
      expect((await get(`${transformer.url}/v2/models/iris/ready`)).status).toBe(200);
      expect((await get(`${transformer.url}/v2/health/ready`)).status).toBe(200);
      expect(probes).toBe(before);
    } finally {
      await transformer.close();
    }
  });
});

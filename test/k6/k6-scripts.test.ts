/**
 * The k6 scripts users run (benchmarks/k6/) against a live server, through the test-only k6
 * API harness (k6-runner.ts): every script and variant, a bounded number of iterations, each
 * check must pass and each rate threshold hold. A wrong answer fails its check, so a check
 * that passed against a server that answers errors would show here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestServer, makeRepository, startServer } from '../helpers/server.js';
import { type K6Run, rateThresholdHolds, runK6Script } from './k6-runner.js';

const ITERATIONS = 25;
let s: TestServer;
let repo: ReturnType<typeof makeRepository>;

beforeAll(async () => {
  repo = makeRepository({ mlp: 'mlp_64x8', conv: 'conv_small' });
  s = await startServer(['--model_repository', repo.dir], { grpc: true });
});

afterAll(async () => {
  await s?.close();
  repo?.cleanup();
});

function expectClean(run: K6Run, requests: 'http_reqs' | 'grpc_reqs', iterations = ITERATIONS): void {
  expect(run.error).toBeUndefined();
  expect(run.counters[requests]).toBe(iterations);
  const names = Object.keys(run.checks);
  expect(names.length).toBeGreaterThan(0);
  for (const [name, c] of Object.entries(run.checks)) {
    expect({ name, ...c }).toEqual({ name, passes: iterations, fails: 0 });
  }
  const thresholds = run.options.thresholds ?? {};
  expect(Object.keys(thresholds)).toContain('checks');
  const checks = Object.values(run.checks).reduce((a, c) => ({ p: a.p + c.passes, n: a.n + c.passes + c.fails }), { p: 0, n: 0 });
  for (const t of thresholds['checks'] ?? []) expect(rateThresholdHolds(t, checks.p / checks.n), t).toBe(true);
  for (const t of thresholds['http_req_failed'] ?? []) {
    expect(rateThresholdHolds(t, run.counters.http_req_failed / run.counters.http_reqs), t).toBe(true);
  }
}

describe('benchmarks/k6 scripts against a live server', () => {
  const rest = () => ({ BASE_URL: s.url, MODEL: 'mlp' });
  const grpcEnv = () => ({ GRPC_ADDR: s.grpcAddress!, MODEL: 'mlp' });

  it('v1-predict.js: V1 instances', async () => {
    expectClean(await runK6Script('v1-predict.js', { ...rest(), SHAPE: '2,64' }, ITERATIONS), 'http_reqs');
  });

  it('v2-infer.js: V2 JSON', async () => {
    expectClean(await runK6Script('v2-infer.js', rest(), ITERATIONS), 'http_reqs');
  });

  it('v2-infer.js: V2 binary tensor extension both ways', async () => {
    expectClean(await runK6Script('v2-infer.js', { ...rest(), BINARY: '1' }, ITERATIONS), 'http_reqs');
  });

  it('v2-infer.js: a larger model and shape', async () => {
    expectClean(await runK6Script('v2-infer.js', { ...rest(), MODEL: 'conv', SHAPE: '1,3,224,224', BINARY: '1' }, 5), 'http_reqs', 5);
  });

  it('grpc.js: typed contents', async () => {
    expectClean(await runK6Script('grpc.js', grpcEnv(), ITERATIONS), 'grpc_reqs');
  });

  it('grpc.js: raw_input_contents', async () => {
    expectClean(await runK6Script('grpc.js', { ...grpcEnv(), RAW: '1' }, ITERATIONS), 'grpc_reqs');
  });

  it('health.js: liveness, readiness and model readiness', async () => {
    expectClean(await runK6Script('health.js', rest(), ITERATIONS), 'http_reqs');
  });

  it('a wrong model fails the checks: the harness does not pass what k6 would fail', async () => {
    const run = await runK6Script('v2-infer.js', { ...rest(), MODEL: 'no_such_model' }, 3);
    expect(run.error).toBeUndefined();
    expect(run.checks['status 200']).toEqual({ passes: 0, fails: 3 });
    expect(run.counters.http_req_failed).toBe(3);
    const grpcRun = await runK6Script('grpc.js', { ...grpcEnv(), MODEL: 'no_such_model' }, 3);
    expect(grpcRun.checks['status OK']).toEqual({ passes: 0, fails: 3 });
  });
});

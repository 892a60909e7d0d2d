/**
 * Standard-mode canaries on the real node through a real Gateway API implementation (#31):
 * the controller runs with `ingress.enableGatewayApi` and its HTTPRoutes attach to the Gateway
 * `kserve/kserve-ingress-gateway` that Traefik v3 serves (test/cluster/node/gateway.ts). An
 * InferenceService has a named stable predictor (`v1`, the iris classifier) and a 20% canary
 * (`v2`, an identity model: a V1 predict echoes the instances, so each answer says which
 * predictor gave it), with the A/B pin header `serving.kserve.io/canary-header: x-model-version`.
 * The tests build on each other: 1 checks the split, the pin and the status; 2 promotes the
 * canary while a client keeps sending.
 *
 * Every client is bounded: a fixed request count (or a stop flag with a count and time cap),
 * a fixed concurrency, a per-request timeout. Nothing depends on the machine's speed: the
 * split is counted, not timed, and every wait is bounded polling that fails as a timeout
 * naming what it waited for.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../controller/harness/index.js';
import { type S3Server, V1_IRIS, credentials, startS3 } from './fixtures.js';
import { GATEWAY_API_VALUES, ensureTraefikGateway } from './gateway.js';
import { type Obj, condition, useKserveSuite } from './kserve.js';

const NS = `canary-${process.pid}`;
const ISVC = 'ab';
const PIN = 'x-model-version';
const SPLIT_REQUESTS = 1_000;
const PINNED_REQUESTS = 50;
const CONCURRENCY = 8;
const REQUEST_TIMEOUT_MS = 10_000;
/** The promotion client's caps: it stops on its flag, or at whichever of these comes first. */
const PROMOTION_MAX_REQUESTS = 20_000;
const PROMOTION_MAX_MS = 240_000;

const suite = useKserveSuite(NS, undefined, GATEWAY_API_VALUES);
let s3: S3Server | undefined;
let gateway = '';
let host = '';
const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });

beforeAll(async () => {
  [gateway, s3] = await Promise.all([ensureTraefikGateway(suite.k.node), startS3()]);
  await suite.k.apply(credentials(NS, s3.endpoint));
}, 600_000);

afterAll(async () => {
  agent.destroy();
  await s3?.stop();
});

type Answer = 'v1' | 'v2' | 'failed';

/** One V1 predict through Traefik: which predictor answered (iris gives labels, identity echoes the rows), or 'failed'. */
function predict(headers: Record<string, string> = {}): Promise<{ answer: Answer; detail: string }> {
  const payload = JSON.stringify(V1_IRIS);
  return new Promise((resolve) => {
    const req = http.request(
      `${gateway}/v1/models/${ISVC}:predict`,
      {
        method: 'POST',
        agent,
        timeout: REQUEST_TIMEOUT_MS,
        headers: { host, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), ...headers },
      },
      (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString('utf8')));
        res.on('end', () => {
          if (res.statusCode !== 200) return resolve({ answer: 'failed', detail: `HTTP ${res.statusCode}: ${body.slice(0, 200)}` });
          try {
            const first = (JSON.parse(body) as { predictions: unknown[] }).predictions[0];
            resolve({ answer: Array.isArray(first) ? 'v2' : 'v1', detail: body.slice(0, 200) });
          } catch {
            resolve({ answer: 'failed', detail: `not a V1 answer: ${body.slice(0, 200)}` });
          }
        });
        res.on('error', (err) => resolve({ answer: 'failed', detail: err.message }));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`timeout after ${REQUEST_TIMEOUT_MS} ms`)));
    req.on('error', (err) => resolve({ answer: 'failed', detail: err.message }));
    req.end(payload);
  });
}

interface Tally {
  readonly counts: Record<Answer, number>;
  readonly sent: number;
  readonly failures: string[];
}

/** Sends until `count` requests were sent or `stop()` says so (or the time cap), `concurrency` at a time. */
async function send(opts: { count: number; concurrency: number; headers?: Record<string, string>; stop?: () => boolean; maxMs?: number }): Promise<Tally> {
  const counts: Record<Answer, number> = { v1: 0, v2: 0, failed: 0 };
  const failures: string[] = [];
  const deadline = Date.now() + (opts.maxMs ?? PROMOTION_MAX_MS);
  let sent = 0;
  const worker = async (): Promise<void> => {
    while (sent < opts.count && !opts.stop?.() && Date.now() < deadline) {
      sent++;
      const r = await predict(opts.headers);
      counts[r.answer]++;
      if (r.answer === 'failed' && failures.length < 10) failures.push(r.detail);
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, worker));
  return { counts, sent, failures };
}

const isvc = (): Promise<Obj> => suite.k.getJson(['get', 'inferenceservice', ISVC, '-n', NS]);
const route = (name: string): Promise<Obj> => suite.k.getJson(['get', 'httproute', name, '-n', NS]);
interface Rule {
  matches: { path: { value: string }; headers?: unknown[] }[];
  backendRefs: { name: string; weight: number }[];
}
/** The REST rules (path `^/.*$`; the server's Service also has a gRPC port, whose rules come first and are built the same way). */
const restRules = (r: Obj): Rule[] => (r.spec.rules as Rule[]).filter((rule) => rule.matches[0]?.path.value === '^/.*$');
const weights = (r: Obj): [string, number][][] => restRules(r).map((rule) => rule.backendRefs.map((b) => [b.name, b.weight]));
/** Every parent has reported on the route's current generation (Traefik has taken it in). */
const reported = (r: Obj): boolean =>
  ((r.status?.parents ?? []) as { conditions: { type: string; status: string; observedGeneration: number }[] }[]).some((p) =>
    p.conditions.some((c) => c.type === 'Accepted' && c.status === 'True' && c.observedGeneration === r.metadata.generation),
  );

describe('canary traffic split through Traefik on a real node', () => {
  it('1. a 20% canary gets 20% ± 5 of 1,000 requests; the pin header always reaches the predictor it names; canaryStatuses', { timeout: 600_000 }, async () => {
    const { k } = suite;
    const model = (uri: string) => ({
      modelFormat: { name: 'onnx' },
      storageUri: uri,
      // Small requests: two cores carry the control plane, the controller, Traefik and both predictors.
      resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '1', memory: '1Gi' } },
    });
    await k.apply([
      {
        apiVersion: 'serving.kserve.io/v1beta1',
        kind: 'InferenceService',
        metadata: { name: ISVC, namespace: NS, annotations: { 'serving.kserve.io/canary-header': PIN } },
        spec: {
          predictor: { name: 'v1', serviceAccountName: 'models-reader', model: model('s3://models/iris') },
          canary: [{ trafficPercent: 20, predictor: { name: 'v2', model: model('s3://models/identity') } }],
        },
      },
    ]);
    const ready = await waitFor(isvc, {
      timeoutMs: 300_000,
      intervalMs: 1_000,
      description: `InferenceService ${ISVC} Ready with canary v2 ready`,
      until: (o) => condition(o, 'Ready')?.status === 'True' && (o.status?.canaryStatuses as { ready: boolean }[] | undefined)?.[0]?.ready === true,
    });
    expect(ready.status.canaryStatuses).toEqual([{ name: 'v2', ready: true, trafficPercent: 20 }]);
    expect(condition(ready, 'CanaryPredictorReady')).toMatchObject({ status: 'True', reason: 'AllCanariesReady' });
    expect(condition(ready, 'IngressReady')?.status).toBe('True');
    host = new URL(ready.status.url as string).host;
    expect(host).toBe(`${ISVC}-${NS}.example.com`);

    // The top-level route: the two pins, then the 80/20 split; Traefik has reported on it.
    const expected = [
      [[`${ISVC}-v1-predictor`, 1]],
      [[`${ISVC}-v2-predictor`, 1]],
      [
        [`${ISVC}-v1-predictor`, 80],
        [`${ISVC}-v2-predictor`, 20],
      ],
    ];
    const top = await waitFor(() => route(ISVC), {
      timeoutMs: 60_000,
      intervalMs: 500,
      description: `HTTPRoute ${ISVC} pinned and weighted, reported on by Traefik`,
      until: (r) => JSON.stringify(weights(r)) === JSON.stringify(expected) && reported(r),
    });
    // The gRPC rules likewise: two pins, then the split.
    expect((top.spec.rules as Rule[]).length - restRules(top).length).toBe(3);
    expect(restRules(top).map((r) => r.matches[0]?.headers)).toEqual([[{ type: 'Exact', name: PIN, value: 'v1' }], [{ type: 'Exact', name: PIN, value: 'v2' }], undefined]);
    // Traefik applies a configuration a moment after reporting on it: wait until a pinned request reaches the canary.
    await waitFor(() => predict({ [PIN]: 'v2' }), { timeoutMs: 60_000, intervalMs: 500, description: 'Traefik routing the pin to v2', until: (r) => r.answer === 'v2' });

    const split = await send({ count: SPLIT_REQUESTS, concurrency: CONCURRENCY });
    console.log(`split of ${SPLIT_REQUESTS} requests through Traefik: v1 ${split.counts.v1}, v2 ${split.counts.v2}, failed ${split.counts.failed}`);
    expect(split.failures).toEqual([]);
    expect(split.counts.v1 + split.counts.v2).toBe(SPLIT_REQUESTS);
    const canaryPercent = (100 * split.counts.v2) / SPLIT_REQUESTS;
    expect(Math.abs(canaryPercent - 20)).toBeLessThanOrEqual(5);

    // A/B: the header pins either predictor, whatever the weights.
    for (const name of ['v2', 'v1'] as const) {
      const pinned = await send({ count: PINNED_REQUESTS, concurrency: CONCURRENCY, headers: { [PIN]: name } });
      console.log(`pinned to ${name}: v1 ${pinned.counts.v1}, v2 ${pinned.counts.v2}, failed ${pinned.counts.failed}`);
      expect(pinned.counts[name]).toBe(PINNED_REQUESTS);
    }
    // A value naming no predictor falls through to the split.
    const unknown = await send({ count: PINNED_REQUESTS, concurrency: CONCURRENCY, headers: { [PIN]: 'v9' } });
    expect(unknown.counts.v1 + unknown.counts.v2).toBe(PINNED_REQUESTS);
  });

  it(
    '2. promotion (predictor.name set to the canary, the entry removed) moves 100% to it with no failed request from a client sending throughout',
    { timeout: 600_000 },
    async () => {
      const { k } = suite;
      let stop = false;
      const during = send({ count: PROMOTION_MAX_REQUESTS, concurrency: 4, stop: () => stop, maxMs: PROMOTION_MAX_MS });
      try {
        await k.node.kubectlOk([
          'patch',
          'inferenceservice',
          ISVC,
          '-n',
          NS,
          '--type=merge',
          '-p',
          JSON.stringify({ spec: { predictor: { name: 'v2', model: { storageUri: 's3://models/identity' } }, canary: null } }),
        ]);
        // The routes send to v2 alone, Traefik has reported on them, and the old stable predictor is gone.
        await waitFor(() => route(ISVC), {
          timeoutMs: 120_000,
          intervalMs: 500,
          description: `HTTPRoute ${ISVC} to ${ISVC}-v2-predictor alone, reported on`,
          until: (r) => JSON.stringify(weights(r)) === JSON.stringify([[[`${ISVC}-v2-predictor`, 1]]]) && reported(r),
        });
        await waitFor(async () => (await k.node.kubectl(['get', 'deployment', `${ISVC}-v1-predictor`, '-n', NS, '--ignore-not-found', '-o', 'name'])).stdout.trim(), {
          timeoutMs: 120_000,
          intervalMs: 1_000,
          description: `Deployment ${ISVC}-v1-predictor deleted`,
          until: (out) => out === '',
        });
        // Until the client's own answers show the move: 100 in a row from v2.
        let run = 0;
        await waitFor(async () => ((await predict()).answer === 'v2' ? ++run : (run = 0)), {
          timeoutMs: 60_000,
          intervalMs: 0,
          description: '100 answers in a row from v2',
          until: (n) => n >= 100,
        });
      } finally {
        stop = true;
      }
      const tally = await during;
      console.log(`during promotion: ${tally.sent} requests, v1 ${tally.counts.v1}, v2 ${tally.counts.v2}, failed ${tally.counts.failed}`);
      expect(tally.failures).toEqual([]);
      expect(tally.counts.failed).toBe(0);
      expect(tally.sent).toBeGreaterThan(0);

      const after = await send({ count: 200, concurrency: CONCURRENCY });
      console.log(`after promotion: v1 ${after.counts.v1}, v2 ${after.counts.v2}, failed ${after.counts.failed}`);
      expect(after.counts).toEqual({ v1: 0, v2: 200, failed: 0 });
      const promoted = await waitFor(isvc, { timeoutMs: 60_000, intervalMs: 1_000, description: 'canaryStatuses cleared', until: (o) => o.status?.canaryStatuses === undefined });
      expect(condition(promoted, 'CanaryPredictorReady')).toBeUndefined();
      expect(condition(promoted, 'Ready')?.status).toBe('True');
      expect(promoted.status.components.predictor.address.url).toBe(`http://${ISVC}-v2-predictor.${NS}.svc.cluster.local`);
    },
  );
});

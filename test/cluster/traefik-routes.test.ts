/**
 * The HTTPRoutes kserve-ts builds for a canary (controller/reconcile/ingress/http-route.ts),
 * served by a real Gateway API implementation without the node: Traefik v3
 * (scripts/traefik-binary.sh) on this machine, its kubernetesGateway provider watching a real
 * kube-apiserver (the controller tests' control plane) with the Gateway API CRDs. The two
 * predictors' Services have EndpointSlices pointing at two HTTP servers on this machine that
 * answer with their name (on its own non-loopback address: the API server refuses loopback
 * endpoints), so every answer says which backend Traefik chose. Shown: the
 * weighted rule splits 80/20, the pin header reaches the predictor it names, a value naming
 * none falls through to the weights, and Traefik reports on each route generation (the
 * `observedGeneration` the controller waits for before it deletes an old stable predictor).
 * test/cluster/node/canary.test.ts shows the same with the controller and real pods.
 *
 * The Traefik build is cached (.ci/run builds it before this stage; a cold build takes far
 * longer than this suite's hook bound, so build it first: scripts/traefik-binary.sh).
 *
 * Bounded: fixed request counts, one at a time, a per-request timeout; every wait is bounded
 * polling.
 */
import { execFileSync, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InferenceService } from '../../controller/api/inference-service.js';
import { parseInferenceServiceConfig } from '../../controller/config/inferenceservice-config.js';
import { type HttpRoute, desiredHttpRoutes } from '../../controller/reconcile/ingress/http-route.js';
import { canaryWeights } from '../../controller/reconcile/standard/canary.js';
import { type TestControlPlane, startControlPlane, waitFor } from '../controller/harness/index.js';
import { freePort } from '../helpers/free-port.js';
import { ROOT } from '../helpers/server.js';
import { tiedToParent } from '../helpers/tied-process.js';

const NS = 'ml';
const LOOPBACK = '127.0.0.1';
/** This machine's own first non-loopback IPv4 address, where the backends listen. */
const OWN_ADDRESS = Object.values(os.networkInterfaces())
  .flat()
  .find((a) => a !== undefined && a.family === 'IPv4' && !a.internal)?.address;
const PIN = 'x-model-version';
const HOST = `ab-${NS}.example.com`;
const SPLIT_REQUESTS = 500;
const PINNED_REQUESTS = 20;

let cp: TestControlPlane;
let traefik: ReturnType<typeof spawn> | undefined;
let traefikLog = '';
let webPort = 0;
const servers: http.Server[] = [];

function nameServer(name: string): Promise<http.Server> {
  const s = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.end(name));
  });
  servers.push(s);
  if (OWN_ADDRESS === undefined) throw new Error('this machine has no non-loopback IPv4 address for the backends (EndpointSlices refuse loopback)');
  return new Promise((resolve) => s.listen(0, OWN_ADDRESS, () => resolve(s)));
}

/** One request through Traefik: `<status>:<body>`, or `error:<message>`. */
function through(headers: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve) => {
    const req = http.request(
      { host: LOOPBACK, port: webPort, path: '/v1/models/ab:predict', method: 'POST', agent: false, timeout: 5_000, headers: { host: HOST, ...headers } },
      (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve(`${res.statusCode}:${body}`));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout after 5000 ms')));
    req.on('error', (err) => resolve(`error:${err.message}`));
    req.end('{}');
  });
}

async function tally(count: number, headers?: Record<string, string>): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (let i = 0; i < count; i++) {
    const r = await through(headers);
    out[r] = (out[r] ?? 0) + 1;
  }
  return out;
}

async function apply(objects: readonly object[]): Promise<void> {
  const file = path.join(cp.dir, `apply-${Date.now()}.json`);
  writeFileSync(file, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }));
  const r = await cp.kubectl(['apply', '-f', file]);
  expect(r.code, r.stderr).toBe(0);
}

const getRoute = async (name: string): Promise<HttpRoute> => JSON.parse((await cp.kubectl(['get', 'httproute', name, '-n', NS, '-o', 'json'])).stdout) as HttpRoute;
const reportedOn = (r: HttpRoute): boolean =>
  (r.status?.parents ?? []).length > 0 && r.status!.parents!.every((p) => (p.conditions ?? []).every((c) => c.status === 'True' && c.observedGeneration === r.metadata.generation));

/** The top-level and predictor routes kserve-ts makes for `ab` with the canary v2 ready (or without canaries). */
function routes(withCanary: boolean): HttpRoute[] {
  const isvc: InferenceService = {
    apiVersion: 'serving.kserve.io/v1beta1',
    kind: 'InferenceService',
    metadata: { name: 'ab', namespace: NS, uid: 'u-ab', annotations: { 'serving.kserve.io/canary-header': PIN } },
    spec: withCanary
      ? {
          predictor: { name: 'v1', model: { modelFormat: { name: 'onnx' } } },
          canary: [{ trafficPercent: 20, predictor: { name: 'v2', model: { modelFormat: { name: 'onnx' } } } }],
        }
      : { predictor: { name: 'v2', model: { modelFormat: { name: 'onnx' } } } },
  };
  const ingress = parseInferenceServiceConfig({ ingress: JSON.stringify({ enableGatewayApi: true }) }).ingress;
  const stable = withCanary ? 'ab-v1-predictor' : 'ab-v2-predictor';
  const weights = canaryWeights(isvc, withCanary ? [{ name: 'v2', ready: true, trafficPercent: 20 }] : []);
  // No owner here (the ISVC is not stored): the routes as the controller applies them otherwise.
  return desiredHttpRoutes(isvc, ingress, { service: { metadata: { name: stable }, spec: { ports: [{ name: 'http', port: 80 }] } }, component: {}, weights }, undefined).map(
    (r) => ({
      ...r,
      metadata: { ...r.metadata, ownerReferences: [] },
    }),
  );
}

beforeAll(async () => {
  const [plane, port, v1, v2] = await Promise.all([startControlPlane({ controllerManager: false }), freePort(), nameServer('v1'), nameServer('v2')]);
  cp = plane;
  webPort = port;
  const crds = execFileSync('bash', [path.join(ROOT, 'scripts/gateway-api-crds.sh')], { encoding: 'utf8' }).trim();
  const r = await cp.kubectl(['apply', '--server-side', '-f', crds]);
  expect(r.code, r.stderr).toBe(0);
  for (const ns of ['kserve', NS]) await cp.kubectl(['create', 'namespace', ns]);
  const backends: object[] = [];
  for (const [service, server] of [
    ['ab-v1-predictor', v1],
    ['ab-v2-predictor', v2],
  ] as const) {
    const target = (server.address() as AddressInfo).port;
    backends.push(
      { apiVersion: 'v1', kind: 'Service', metadata: { name: service, namespace: NS }, spec: { ports: [{ name: 'http', port: 80, targetPort: target }] } },
      {
        apiVersion: 'discovery.k8s.io/v1',
        kind: 'EndpointSlice',
        metadata: { name: `${service}-host`, namespace: NS, labels: { 'kubernetes.io/service-name': service } },
        addressType: 'IPv4',
        ports: [{ name: 'http', port: target, protocol: 'TCP' }],
        endpoints: [{ addresses: [OWN_ADDRESS!], conditions: { ready: true } }],
      },
    );
  }
  await apply([
    ...backends,
    { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'GatewayClass', metadata: { name: 'traefik' }, spec: { controllerName: 'traefik.io/gateway-controller' } },
    {
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'Gateway',
      metadata: { name: 'kserve-ingress-gateway', namespace: 'kserve' },
      spec: { gatewayClassName: 'traefik', listeners: [{ name: 'http', protocol: 'HTTP', port: webPort, allowedRoutes: { namespaces: { from: 'All' } } }] },
    },
  ]);
  const ca = path.join(cp.dir, 'traefik-ca.crt');
  const caData = await cp.kubectl(['config', 'view', '--raw', '-o', 'jsonpath={.clusters[0].cluster.certificate-authority-data}']);
  writeFileSync(ca, Buffer.from(caData.stdout, 'base64'));
  const bin = execFileSync('bash', [path.join(ROOT, 'scripts/traefik-binary.sh')], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .pop()!;
  // The listener's port is the entry point's: Traefik maps one to the other.
  const [cmd, args] = tiedToParent(bin, [
    `--entryPoints.web.address=${LOOPBACK}:${webPort}`,
    '--providers.kubernetesGateway=true',
    `--providers.kubernetesGateway.endpoint=${cp.server}`,
    `--providers.kubernetesGateway.token=${cp.token}`,
    `--providers.kubernetesGateway.certAuthFilePath=${ca}`,
    '--global.checkNewVersion=false',
    '--global.sendAnonymousUsage=false',
    '--log.level=INFO',
  ]);
  traefik = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const keep = (d: Buffer) => (traefikLog = (traefikLog + d.toString()).slice(-8_000));
  traefik.stdout?.on('data', keep);
  traefik.stderr?.on('data', keep);
  await waitFor(
    async () =>
      JSON.parse((await cp.kubectl(['get', 'gateway', 'kserve-ingress-gateway', '-n', 'kserve', '-o', 'json'])).stdout) as {
        status?: { conditions?: { type: string; status: string }[] };
      },
    {
      timeoutMs: 60_000,
      intervalMs: 500,
      description: `Gateway Programmed by Traefik (log: ${traefikLog.slice(-500)})`,
      until: (g) => g.status?.conditions?.some((c) => c.type === 'Programmed' && c.status === 'True') === true,
    },
  );
}, 300_000);

afterAll(async () => {
  if (traefik && traefik.exitCode === null) {
    const gone = new Promise((r) => traefik!.once('exit', r));
    traefik.kill('SIGTERM');
    await gone;
  }
  for (const s of servers) s.close();
  await cp?.stop();
});

describe("kserve-ts's canary HTTPRoutes through a real Traefik", () => {
  it('the weighted rule splits 80/20, the pin header reaches the predictor it names, an unknown value falls through', { timeout: 300_000 }, async () => {
    await apply(routes(true));
    const top = await waitFor(() => getRoute('ab'), { timeoutMs: 60_000, intervalMs: 500, description: 'route ab reported on by Traefik', until: reportedOn });
    expect(top.spec.rules).toHaveLength(3);
    // Traefik applies a configuration a moment after reporting on it.
    await waitFor(() => through({ [PIN]: 'v2' }), { timeoutMs: 30_000, intervalMs: 250, description: 'the pin to v2 routed', until: (r) => r === '200:v2' });

    const split = await tally(SPLIT_REQUESTS);
    console.log(`Traefik split of ${SPLIT_REQUESTS}: ${JSON.stringify(split)}`);
    expect((split['200:v1'] ?? 0) + (split['200:v2'] ?? 0)).toBe(SPLIT_REQUESTS);
    expect(Math.abs((100 * (split['200:v2'] ?? 0)) / SPLIT_REQUESTS - 20)).toBeLessThanOrEqual(5);
    expect(await tally(PINNED_REQUESTS, { [PIN]: 'v2' })).toEqual({ '200:v2': PINNED_REQUESTS });
    expect(await tally(PINNED_REQUESTS, { [PIN]: 'v1' })).toEqual({ '200:v1': PINNED_REQUESTS });
    const unknown = await tally(PINNED_REQUESTS, { [PIN]: 'v9' });
    expect((unknown['200:v1'] ?? 0) + (unknown['200:v2'] ?? 0)).toBe(PINNED_REQUESTS);
  });

  it('after promotion the routes send to v2 alone, and Traefik reports on the new generation', { timeout: 300_000 }, async () => {
    const before = (await getRoute('ab')).metadata.generation!;
    await apply(routes(false));
    const after = await waitFor(() => getRoute('ab'), {
      timeoutMs: 60_000,
      intervalMs: 500,
      description: 'route ab reported on at its new generation',
      until: (r) => r.metadata.generation! > before && reportedOn(r),
    });
    expect(after.spec.rules).toHaveLength(1);
    await waitFor(() => tally(20), { timeoutMs: 30_000, intervalMs: 250, description: 'Traefik sending to v2 alone', until: (t) => t['200:v2'] === 20 });
    expect(await tally(100)).toEqual({ '200:v2': 100 });
    // With no canary the pin is gone: the header changes nothing.
    expect(await tally(PINNED_REQUESTS, { [PIN]: 'v1' })).toEqual({ '200:v2': PINNED_REQUESTS });
  });
});

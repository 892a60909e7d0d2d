/**
 * Standard-mode scaling and stopping on the real node (#31), with real components: the HPA
 * the controller makes for `minReplicas`/`maxReplicas`/`scaleMetric`/`scaleTarget` is driven
 * by the node's kube-controller-manager (HPA sync every 5 s, scripts/kube-node.sh) from
 * metrics-server's resource metrics (test/cluster/node/metrics-server.ts), and
 * `serving.kserve.io/stop` takes the component's objects away and brings them back. The
 * tests build on each other: 1 scales `iris-hpa` up under load and back down after it, 2 stops
 * and starts it.
 *
 * Nothing here depends on the machine's speed: the predictor asks for 100m CPU with a 50%
 * target (50 millicores). An idle server (kubelet probes only) uses a few millicores on any
 * machine, so the HPA is first seen below the target at one replica (the start-up's own CPU
 * may scale it briefly: the test waits for the idle state rather than assuming it); the load
 * (8 requests in flight, bounded in count and time) keeps a server at many times the target
 * on any machine. Every wait is bounded polling that fails as a timeout naming what it waited
 * for.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../controller/harness/index.js';
import { imageName } from '../../images/docker.js';
import { V1_IRIS } from './fixtures.js';
import { type Obj, condition, request, useKserveSuite, waitRoutable } from './kserve.js';
import { ensureMetricsServer } from './metrics-server.js';

const NS = `autoscaling-${process.pid}`;
const ISVC = 'iris-hpa';
const COMPONENT = `${ISVC}-predictor`;
const STOP = 'serving.kserve.io/stop';
/** The load's bounds: it ends at whichever comes first, or once the Deployment has scaled. */
const LOAD_MAX_REQUESTS = 200_000;
const LOAD_MAX_MS = 300_000;
const LOAD_CONCURRENCY = 8;
/** The HPA's CPU target, percent of the 100m request. */
const TARGET = 50;

const utilization = (hpa: Obj): number | undefined => {
  const v: unknown = hpa.status?.currentMetrics?.[0]?.resource?.current?.averageUtilization;
  return typeof v === 'number' ? v : undefined;
};

const suite = useKserveSuite(NS);

beforeAll(async () => {
  await ensureMetricsServer(suite.k.node);
}, 300_000);

async function getOrNull(kind: string, name: string): Promise<Obj | null> {
  const r = await suite.k.node.kubectl(['get', kind, name, '-n', NS, '-o', 'json', '--ignore-not-found']);
  if (r.code !== 0) throw new Error(`kubectl get ${kind} ${name}: ${r.stderr.trim()}`);
  return r.stdout.trim() === '' ? null : (JSON.parse(r.stdout) as Obj);
}

/** Sends V1 predicts to `url` until `done()` or a bound is reached; returns how many got 200. */
async function load(url: string, done: () => boolean): Promise<{ ok: number; sent: number }> {
  const deadline = Date.now() + LOAD_MAX_MS;
  let sent = 0;
  let ok = 0;
  const worker = async (): Promise<void> => {
    while (!done() && sent < LOAD_MAX_REQUESTS && Date.now() < deadline) {
      sent++;
      try {
        if ((await request(url, V1_IRIS, 5_000)).status === 200) ok++;
      } catch {
        // A refused or timed-out request still counts towards the bound.
      }
    }
  };
  await Promise.all(Array.from({ length: LOAD_CONCURRENCY }, worker));
  return { ok, sent };
}

describe('Standard-mode autoscaling and stop on a real node', () => {
  it(
    '1. autoScaling on cpu: the HPA reads the idle pod below its target from metrics-server, scales the Deployment above 1 under load and back to 1 after',
    { timeout: 600_000 },
    async () => {
      const { k } = suite;
      await k.apply([
        {
          apiVersion: 'serving.kserve.io/v1beta1',
          kind: 'InferenceService',
          metadata: { name: ISVC, namespace: NS },
          spec: {
            predictor: {
              minReplicas: 1,
              maxReplicas: 3,
              autoScaling: {
                metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: TARGET } } }],
                // Scale-down without the 5-minute default window, so the test sees it happen.
                behavior: { scaleDown: { stabilizationWindowSeconds: 0, policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] } },
              },
              model: {
                modelFormat: { name: 'onnx' },
                storageUri: `oci://${imageName('model-iris')}`,
                resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '1', memory: '1Gi' } },
              },
            },
          },
        },
      ]);
      await k.waitIsvcReady(ISVC);
      const hpa = await k.getJson(['get', 'hpa', COMPONENT, '-n', NS]);
      expect(hpa.spec).toMatchObject({
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: COMPONENT },
        minReplicas: 1,
        maxReplicas: 3,
        metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: TARGET } } }],
      });

      // The HPA controller reads the pod's CPU through metrics.k8s.io: idle, one replica below
      // the target, so what follows is the load's doing.
      const measured = await waitFor(() => k.getJson(['get', 'hpa', COMPONENT, '-n', NS]), {
        timeoutMs: 240_000,
        intervalMs: 2_000,
        description: `HPA ${COMPONENT} to report the idle pod's CPU from metrics-server below ${TARGET}% at 1 replica`,
        until: (o) => utilization(o) !== undefined && (utilization(o) as number) < TARGET && o.status?.currentReplicas === 1 && o.status?.desiredReplicas === 1,
      });
      expect(condition(measured, 'ScalingActive')).toMatchObject({ status: 'True', reason: 'ValidMetricFound' });
      const before = utilization(measured) as number;

      const base = `http://${await k.clusterIP(COMPONENT)}`;
      await waitRoutable(base, ISVC);
      let scaled: Obj | undefined;
      const watcher = waitFor(() => k.getJson(['get', 'deployment', COMPONENT, '-n', NS]), {
        timeoutMs: LOAD_MAX_MS,
        intervalMs: 2_000,
        description: `Deployment ${COMPONENT} to be scaled above 1 replica by the HPA`,
        until: (d) => (d.spec?.replicas as number) > 1,
      }).then((d) => (scaled = d));
      const sent = await load(`${base}/v1/models/${ISVC}:predict`, () => scaled !== undefined);
      const deployment = await watcher;
      expect(sent.ok).toBeGreaterThan(0);
      expect(deployment.spec.replicas).toBeGreaterThan(1);
      expect(deployment.spec.replicas).toBeLessThanOrEqual(3);
      const after = await k.getJson(['get', 'hpa', COMPONENT, '-n', NS]);
      expect(after.status.desiredReplicas).toBeGreaterThan(1);

      // The load has ended: the HPA takes the extra replicas away again.
      const idle = await waitFor(() => k.getJson(['get', 'hpa', COMPONENT, '-n', NS]), {
        timeoutMs: 240_000,
        intervalMs: 2_000,
        description: `HPA ${COMPONENT} to scale back to 1 replica after the load`,
        until: (o) => o.status?.desiredReplicas === 1 && o.status?.currentReplicas === 1,
      });
      const down = await k.getJson(['get', 'deployment', COMPONENT, '-n', NS]);
      expect(down.spec.replicas).toBe(1);
      console.log(
        `autoscaling: CPU at ${before}% of the request before the load; ${sent.sent} requests (${sent.ok} answered) until the HPA scaled ${COMPONENT} to ${deployment.spec.replicas}; back to 1 at ${utilization(idle) ?? '?'}%`,
      );
    },
  );

  it('2. serving.kserve.io/stop: Deployment, Service and HPA deleted, Stopped=True, requests fail; removed: back and serving', { timeout: 420_000 }, async () => {
    const { k } = suite;
    const oldBase = `http://${await k.clusterIP(COMPONENT)}`;
    await k.node.kubectlOk(['annotate', 'inferenceservice', ISVC, '-n', NS, `${STOP}=true`]);
    const stopped = await waitFor(() => k.getJson(['get', 'inferenceservice', ISVC, '-n', NS]), {
      timeoutMs: 120_000,
      intervalMs: 1_000,
      description: `InferenceService ${ISVC} Stopped`,
      until: (o) => condition(o, 'Stopped')?.status === 'True',
    });
    expect(condition(stopped, 'Ready')).toMatchObject({ status: 'False', reason: 'Stopped' });
    const gone = await waitFor(async () => Promise.all(['deployment', 'service', 'hpa'].map((kind) => getOrNull(kind, COMPONENT))), {
      timeoutMs: 120_000,
      intervalMs: 1_000,
      description: `the Deployment, Service and HPA ${COMPONENT} deleted`,
      until: (objs) => objs.every((o) => o === null),
    });
    expect(gone).toEqual([null, null, null]);
    // The pods go with the Deployment; the old Service address routes nowhere.
    await waitFor(() => k.getJson<{ items: Obj[] }>(['get', 'pods', '-n', NS, '-l', `serving.kserve.io/inferenceservice=${ISVC}`]), {
      timeoutMs: 120_000,
      intervalMs: 1_000,
      description: `the pods of ${ISVC} gone`,
      until: (l) => l.items.length === 0,
    });
    await expect(request(`${oldBase}/v1/models/${ISVC}:predict`, V1_IRIS, 3_000)).rejects.toThrow();

    await k.node.kubectlOk(['annotate', 'inferenceservice', ISVC, '-n', NS, `${STOP}-`]);
    const started = await k.waitIsvcReady(ISVC);
    expect(condition(started, 'Stopped')?.status).toBe('False');
    expect(await getOrNull('hpa', COMPONENT)).not.toBeNull();
    const base = `http://${await k.clusterIP(COMPONENT)}`;
    await waitRoutable(base, ISVC);
    const r = await request(`${base}/v1/models/${ISVC}:predict`, V1_IRIS);
    expect(r.status, r.body).toBe(200);
    expect(JSON.parse(r.body)).toHaveProperty('predictions');
  });
});

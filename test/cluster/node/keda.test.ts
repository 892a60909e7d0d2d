/**
 * Scale to zero with KEDA on the real node (#31): an InferenceService with
 * `serving.kserve.io/autoscalerClass: keda` and `minReplicas: 0` gets the ScaledObject the
 * controller builds, KEDA's operator (test/cluster/node/keda.ts) makes it Ready, polls its
 * prometheus trigger (a stand-in answering on the node address with a value the test sets)
 * and takes the predictor's Deployment to zero while the value is 0, and back to one pod,
 * serving again, once it is above the activation threshold (0). Every wait is bounded
 * polling (KEDA polls every 30 s by default) that fails as a timeout naming what it awaited.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../controller/harness/index.js';
import { imageName } from '../../images/docker.js';
import { V1_IRIS } from './fixtures.js';
import { type FakePrometheus, ensureKeda, startFakePrometheus } from './keda.js';
import { type Obj, condition, request, useKserveSuite, waitRoutable } from './kserve.js';

const NS = `keda-${process.pid}`;
const ISVC = 'iris-keda';
const COMPONENT = `${ISVC}-predictor`;
const QUERY = 'kserve_model_queue_depth';

const suite = useKserveSuite(NS);
let prometheus: FakePrometheus | undefined;

beforeAll(async () => {
  // Before the InferenceService: the controller makes the ScaledObject once the CRD is served.
  await ensureKeda(suite.k.node);
  prometheus = await startFakePrometheus();
}, 600_000);

afterAll(async () => {
  await prometheus?.close();
});

function deployment(): Promise<Obj> {
  return suite.k.getJson(['get', 'deployment', COMPONENT, '-n', NS]);
}

describe('KEDA scale to zero on a real node', () => {
  it('minReplicas 0: KEDA takes the predictor to zero while its trigger is idle and back to a serving pod once it is active', { timeout: 600_000 }, async () => {
    const { k } = suite;
    const prom = prometheus!;
    prom.value = 0;
    await k.apply([
      {
        apiVersion: 'serving.kserve.io/v1beta1',
        kind: 'InferenceService',
        metadata: { name: ISVC, namespace: NS, annotations: { 'serving.kserve.io/autoscalerClass': 'keda' } },
        spec: {
          predictor: {
            minReplicas: 0,
            maxReplicas: 2,
            autoScaling: {
              metrics: [{ type: 'External', external: { metric: { backend: 'prometheus', serverAddress: prom.url, query: QUERY }, target: { type: 'Value', value: '1' } } }],
            },
            model: {
              modelFormat: { name: 'onnx' },
              storageUri: `oci://${imageName('model-iris')}`,
              resources: { requests: { cpu: '20m', memory: '128Mi' }, limits: { cpu: '1', memory: '1Gi' } },
            },
          },
        },
      },
    ]);
    const so = await waitFor(() => k.getJson(['get', 'scaledobject', COMPONENT, '-n', NS]), {
      timeoutMs: 180_000,
      intervalMs: 1_000,
      description: `ScaledObject ${COMPONENT} Ready`,
      until: (o) => condition(o, 'Ready')?.status === 'True',
    });
    expect(so.spec).toMatchObject({
      scaleTargetRef: { name: COMPONENT },
      minReplicaCount: 0,
      maxReplicaCount: 2,
      triggers: [{ type: 'prometheus', metadata: { serverAddress: prom.url, query: QUERY, threshold: '1' } }],
    });

    // Idle: to zero pods, from KEDA's own poll of the trigger.
    const zero = await waitFor(deployment, {
      timeoutMs: 240_000,
      intervalMs: 2_000,
      description: `Deployment ${COMPONENT} scaled to 0 by KEDA`,
      until: (d) => d.spec?.replicas === 0 && !d.status?.replicas,
    });
    expect(zero.spec.replicas).toBe(0);
    expect(prom.queries.length).toBeGreaterThan(0);
    expect(prom.queries.every((q) => q === QUERY)).toBe(true);
    const idle = await k.getJson(['get', 'scaledobject', COMPONENT, '-n', NS]);
    expect(condition(idle, 'Active')?.status).not.toBe('True');

    // Active: back to one pod, which serves.
    prom.value = 5;
    const one = await waitFor(deployment, {
      timeoutMs: 300_000,
      intervalMs: 2_000,
      description: `Deployment ${COMPONENT} scaled back to a ready pod by KEDA`,
      until: (d) => (d.status?.readyReplicas ?? 0) >= 1,
    });
    expect(one.spec.replicas).toBeGreaterThanOrEqual(1);
    const active = await waitFor(() => k.getJson(['get', 'scaledobject', COMPONENT, '-n', NS]), {
      timeoutMs: 60_000,
      intervalMs: 1_000,
      description: `ScaledObject ${COMPONENT} Active`,
      until: (o) => condition(o, 'Active')?.status === 'True',
    });
    expect(condition(active, 'Ready')?.status).toBe('True');
    const base = `http://${await k.clusterIP(COMPONENT)}`;
    await waitRoutable(base, ISVC);
    const r = await request(`${base}/v1/models/${ISVC}:predict`, V1_IRIS);
    expect(r.status, r.body).toBe(200);
  });
});

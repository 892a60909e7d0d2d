/**
 * Knative mode on a real API server with the Knative Service CRD installed. Knative's own
 * controller does not run here: the test plays it, writing the ksvc status (revisions,
 * traffic, URL) the way Knative reports it, and checks what the controller asks of
 * Knative (autoscaling annotations, canary split) and what it reports in the ISVC.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { KnativeService } from '../../controller/reconcile/knative/knative-service.js';
import { ROOT } from '../helpers/server.js';
import { type ControllerProcess, startController } from './controller-process.js';
import { type TestControlPlane, startControlPlane, waitFor } from './harness/index.js';
import { type Clients, clientsFor, conditionOf, createNamespace, isReady, isvcYaml, kubectlApply, notFound, waitForIsvc } from './kube-test-helpers.js';

// Every test here waits on a real control plane that shares two cores with the rest of the
// suite: waits carry their own deadlines (and report what they last saw), so the test
// deadline only has to be longer than those.
vi.setConfig({ testTimeout: 150_000 });

const NS = 'knative';
let cp: TestControlPlane;
let c: Clients;
let controller: ControllerProcess;

const ksvcApi = { group: 'serving.knative.dev', version: 'v1', namespace: NS, plural: 'services' };

async function readKsvc(name: string): Promise<KnativeService> {
  return (await c.custom.getNamespacedCustomObject({ ...ksvcApi, name })) as KnativeService;
}

/** What Knative's controller would report once `revision` is ready and `traffic` routed. */
async function knativeReports(name: string, revision: string, traffic: { revisionName: string; percent: number; tag?: string }[]): Promise<void> {
  const ksvc = await readKsvc(name);
  await c.custom.replaceNamespacedCustomObjectStatus({
    ...ksvcApi,
    name,
    body: {
      ...ksvc,
      status: {
        observedGeneration: ksvc.metadata?.generation,
        conditions: [
          { type: 'Ready', status: 'True' },
          { type: 'RoutesReady', status: 'True' },
          { type: 'ConfigurationsReady', status: 'True' },
        ],
        url: `http://${name}.${NS}.example.com`,
        address: { url: `http://${name}.${NS}.svc.cluster.local` },
        latestCreatedRevisionName: revision,
        latestReadyRevisionName: revision,
        traffic: traffic.map((t) => ({ ...t, latestRevision: t.revisionName === revision })),
      },
    },
  });
}

beforeAll(async () => {
  cp = await startControlPlane();
  c = clientsFor(cp);
  await createNamespace(c, 'kserve');
  await createNamespace(c, NS);
  await kubectlApply(cp, readFileSync(path.join(ROOT, 'test/controller/fixtures/knative-service-crd.yaml'), 'utf8'));
  await waitFor(async () => (await cp.kubectl(['get', 'ksvc', '-A'])).code === 0, { description: 'Knative CRD served' });
  // No `deploy` key: KServe's code then means Knative, the shipped default.
  controller = await startController(cp, 'knative-replica');
  await kubectlApply(cp, readFileSync(path.join(ROOT, 'controller/runtimes/kserve-ts.yaml'), 'utf8'));
}, 45 * 60_000);

afterAll(async () => {
  await controller?.stop();
  await cp?.stop();
}, 60_000);

describe('Knative mode', () => {
  it('creates a Knative Service with the autoscaling annotations and reports Ready from it', async () => {
    await kubectlApply(
      cp,
      isvcYaml(
        'sk',
        `  predictor:
    minReplicas: 0
    maxReplicas: 5
    scaleMetric: concurrency
    scaleTarget: 4
    containerConcurrency: 8
    timeout: 120
    model:
      modelFormat: { name: onnx }
      storageUri: s3://models/sk/1
`,
      ),
      NS,
    );
    const ksvc = await waitFor(() => readKsvc('sk-predictor'), { description: 'ksvc created' });
    expect(ksvc.metadata?.ownerReferences?.[0]).toMatchObject({ kind: 'InferenceService', name: 'sk' });
    expect(ksvc.spec.template.metadata.annotations).toMatchObject({
      'autoscaling.knative.dev/class': 'kpa.autoscaling.knative.dev',
      'autoscaling.knative.dev/min-scale': '0',
      'autoscaling.knative.dev/max-scale': '5',
      'autoscaling.knative.dev/metric': 'concurrency',
      'autoscaling.knative.dev/target': '4',
      'internal.serving.kserve.io/storage-initializer-sourceuri': 's3://models/sk/1',
    });
    expect(ksvc.spec.template.spec).toMatchObject({ containerConcurrency: 8, timeoutSeconds: 120 });
    expect(ksvc.spec.template.spec.containers[0]?.args).toContain('--model_name=sk');
    expect(ksvc.spec.traffic).toEqual([{ latestRevision: true, percent: 100 }]);

    let isvc = await waitForIsvc(c, NS, 'sk', (i) => i.status?.deploymentMode === 'Knative', 'mode recorded');
    expect(isReady(isvc)).toBe(false);

    await knativeReports('sk-predictor', 'sk-predictor-00001', [{ revisionName: 'sk-predictor-00001', percent: 100 }]);
    isvc = await waitForIsvc(c, NS, 'sk', isReady, 'Ready');
    expect(isvc.status?.url).toBe(`http://sk.${NS}.example.com`);
    expect(isvc.status?.address?.url).toBe(`http://sk.${NS}.svc.cluster.local`);
    expect(conditionOf(isvc, 'PredictorReady')?.status).toBe('True');
    expect(isvc.status?.components?.predictor).toMatchObject({ latestReadyRevision: 'sk-predictor-00001', latestRolledoutRevision: 'sk-predictor-00001' });
  });

  it('canaryTrafficPercent splits traffic between the new and the last rolled-out revision, then promotes', async () => {
    await cp.kubectl(['patch', 'isvc', 'sk', '-n', NS, '--type=merge', '-p', '{"spec":{"predictor":{"canaryTrafficPercent":20,"model":{"storageUri":"s3://models/sk/2"}}}}']);
    const split = await waitFor(() => readKsvc('sk-predictor'), { until: (k) => k.spec.traffic.length === 2, description: 'canary split' });
    expect(split.spec.traffic).toEqual([
      { latestRevision: true, percent: 20 },
      { latestRevision: false, revisionName: 'sk-predictor-00001', percent: 80, tag: 'prev' },
    ]);
    await knativeReports('sk-predictor', 'sk-predictor-00002', [
      { revisionName: 'sk-predictor-00002', percent: 20 },
      { revisionName: 'sk-predictor-00001', percent: 80, tag: 'prev' },
    ]);
    let isvc = await waitForIsvc(c, NS, 'sk', (i) => i.status?.components?.predictor?.latestReadyRevision === 'sk-predictor-00002', 'canary revision ready');
    // Not rolled out yet: it only has 20% of the traffic.
    expect(isvc.status?.components?.predictor?.latestRolledoutRevision).toBe('sk-predictor-00001');

    await cp.kubectl(['patch', 'isvc', 'sk', '-n', NS, '--type=merge', '-p', '{"spec":{"predictor":{"canaryTrafficPercent":100}}}']);
    await waitFor(() => readKsvc('sk-predictor'), { until: (k) => k.spec.traffic.length === 1 && k.spec.traffic[0]?.percent === 100, description: 'promoted' });
    await knativeReports('sk-predictor', 'sk-predictor-00002', [{ revisionName: 'sk-predictor-00002', percent: 100 }]);
    isvc = await waitForIsvc(c, NS, 'sk', (i) => i.status?.components?.predictor?.latestRolledoutRevision === 'sk-predictor-00002', 'rolled out');
    expect(isvc.status?.components?.predictor?.previousRolledoutRevision).toBe('sk-predictor-00001');
  });

  it('serving.kserve.io/stop deletes the Knative Service and reports Stopped; removing the annotation brings it back', async () => {
    await cp.kubectl(['annotate', 'isvc', 'sk', '-n', NS, 'serving.kserve.io/stop=true']);
    let isvc = await waitForIsvc(c, NS, 'sk', (i) => conditionOf(i, 'Stopped')?.status === 'True', 'Stopped');
    expect(conditionOf(isvc, 'Ready')).toMatchObject({ status: 'False', reason: 'Stopped' });
    expect(conditionOf(isvc, 'PredictorReady')).toMatchObject({ status: 'False', reason: 'Stopped' });
    expect(isvc.status?.url).toBeUndefined();
    await waitFor(() => notFound(readKsvc('sk-predictor')), { description: 'ksvc deleted' });

    await cp.kubectl(['annotate', 'isvc', 'sk', '-n', NS, 'serving.kserve.io/stop-']);
    await waitFor(() => readKsvc('sk-predictor'), { description: 'ksvc made again' });
    isvc = await waitForIsvc(c, NS, 'sk', (i) => conditionOf(i, 'Stopped')?.status === 'False', 'not Stopped');
    expect(conditionOf(isvc, 'PredictorReady')?.reason).not.toBe('Stopped');
  });
});

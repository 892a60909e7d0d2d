/**
 * An InferenceService that cannot run says why, on the real node (#27): the real
 * kube-scheduler's refusal of a predictor that asks for more CPU than the node has, the real
 * kubelet's report of an image that is not there and of a server that exits at start, each in
 * PredictorReady's reason and message and carried on by Ready (before, all three showed only
 * `MinimumReplicasUnavailable` / "Predictor ingress not created"). The same on the test
 * apiserver with a fake kubelet: test/controller/controller.test.ts; the rules:
 * test/controller/pod-failure.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { waitFor } from '../../controller/harness/index.js';
import { imageName } from '../../images/docker.js';
import { type Obj, condition, useKserveSuite } from './kserve.js';

const NS = `pod-failure-${process.pid}`;
const SMALL = { requests: { cpu: '50m', memory: '128Mi' }, limits: { cpu: '1', memory: '512Mi' } };

const suite = useKserveSuite(NS);

function isvc(name: string, predictor: object): object {
  return { apiVersion: 'serving.kserve.io/v1beta1', kind: 'InferenceService', metadata: { name, namespace: NS }, spec: { predictor } };
}

/** The InferenceService once PredictorReady has `reason`. */
function waitReason(name: string, reason: string): Promise<Obj> {
  return waitFor(() => suite.k.getJson(['get', 'inferenceservice', name, '-n', NS]), {
    timeoutMs: 180_000,
    intervalMs: 1_000,
    description: `InferenceService ${name}: PredictorReady ${reason}`,
    until: (o) => condition(o, 'PredictorReady')?.reason === reason,
  });
}

describe('a predictor that cannot run says why', () => {
  it("more CPU than the node has: the scheduler's message, in PredictorReady and Ready", { timeout: 300_000 }, async () => {
    const { k } = suite;
    const node = await k.getJson(['get', 'node', 'knode']);
    const cores = Number(node.status.allocatable.cpu);
    expect(Number.isInteger(cores)).toBe(true);
    const more = String(cores + 1);
    await k.apply([
      isvc('too-big', {
        model: {
          modelFormat: { name: 'onnx' },
          storageUri: `oci://${imageName('model-iris')}`,
          resources: { requests: { cpu: more, memory: '128Mi' }, limits: { cpu: more, memory: '512Mi' } },
        },
      }),
    ]);
    const o = await waitReason('too-big', 'Unschedulable');
    const predictor = condition(o, 'PredictorReady');
    expect(predictor?.status).toBe('Unknown');
    expect(predictor?.message).toMatch(/^pod too-big-predictor-[a-z0-9]+-[a-z0-9]+ cannot be scheduled: 0\/1 nodes are available: 1 Insufficient cpu\./);
    expect(condition(o, 'Ready')).toMatchObject({ status: 'False', message: `predictor not ready: Unschedulable: ${predictor?.message}` });
  });

  it("an image that is not on the node: the kubelet's ErrImageNeverPull", { timeout: 300_000 }, async () => {
    const { k } = suite;
    await k.apply([isvc('no-image', { containers: [{ name: 'kserve-container', image: 'kserve-ts-never-built:0.0.0', imagePullPolicy: 'Never', resources: SMALL }] })]);
    const o = await waitReason('no-image', 'ErrImageNeverPull');
    expect(condition(o, 'PredictorReady')?.message).toMatch(
      /^pod no-image-predictor-\S+, container kserve-container: Container image "kserve-ts-never-built:0\.0\.0" is not present with pull policy of Never$/,
    );
  });

  it('a server that exits at start: CrashLoopBackOff with its exit code', { timeout: 300_000 }, async () => {
    const { k } = suite;
    await k.apply([
      isvc('crashing', {
        containers: [
          {
            name: 'kserve-container',
            image: imageName('server'),
            imagePullPolicy: 'IfNotPresent',
            args: ['--model_name', 'crashing', '--model_dir', '/nonexistent'],
            resources: SMALL,
          },
        ],
      }),
    ]);
    const o = await waitReason('crashing', 'CrashLoopBackOff');
    expect(condition(o, 'PredictorReady')?.message).toMatch(/^pod crashing-predictor-\S+, container kserve-container: keeps failing; last exit: Error, exit code 1/);
  });
});

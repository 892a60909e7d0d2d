/**
 * GPU predictors on the real node (#26), a CPU node: an InferenceService that requests
 * `nvidia.com/gpu` gets the `kserve-ts-onnx-gpu` runtime of charts/kserve-ts-runtimes (the
 * CUDA image and `--execution_providers=cuda,cpu`) without writing args, and its pod waits
 * for a GPU the node does not have. Then the same runtime runs here with `nvidia.com/gpu: "0"`
 * and a stub NVIDIA driver from a hostPath first on LD_LIBRARY_PATH (what the NVIDIA container
 * runtime does with the real one): onnxruntime loads the provider, CUDA fails inside it, and
 * the pod serves on the CPU with the fallback warning in its log. The model is the iris
 * modelcar, so no credentials are involved.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../controller/harness/index.js';
import { STUB_FAILURE, type StubDriver, buildStubDriver } from '../../helpers/cuda-stub-driver.js';
import { imageName } from '../../images/docker.js';
import { V2_IRIS } from './fixtures.js';
import { type Condition, type Obj, request, useKserveSuite, waitRoutable } from './kserve.js';

const NS = `gpu-${process.pid}`;
const MODEL_URI = `oci://${imageName('model-iris')}`;
const GPU_RUNTIME = 'kserve-ts-onnx-gpu';

const suite = useKserveSuite(NS);
let stub: StubDriver;
beforeAll(() => {
  stub = buildStubDriver();
});
afterAll(() => stub?.cleanup());

/** An onnx predictor on the iris modelcar; `model` adds to the model spec, `predictor` to the predictor. */
function isvc(name: string, model: Record<string, unknown>, predictor: Record<string, unknown> = {}): object {
  return {
    apiVersion: 'serving.kserve.io/v1beta1',
    kind: 'InferenceService',
    metadata: { name, namespace: NS },
    spec: { predictor: { ...predictor, model: { modelFormat: { name: 'onnx' }, storageUri: MODEL_URI, ...model } } },
  };
}

interface Container {
  name: string;
  image: string;
  args?: string[];
  resources?: { limits?: Record<string, string>; requests?: Record<string, string> };
}

describe('GPU predictors on a real (CPU) node', () => {
  it('requesting nvidia.com/gpu gets the GPU runtime, its CUDA image and flag, and a pod that waits for a GPU', { timeout: 300_000 }, async () => {
    const { k } = suite;
    // Small CPU and memory requests: only the GPU may keep this pod from the node.
    const resources = { requests: { cpu: '100m', memory: '256Mi' }, limits: { cpu: '1', memory: '2Gi', 'nvidia.com/gpu': '1' } };
    await k.apply([isvc('resnet-gpu', { resources })]);
    const chosen = await waitFor(() => k.getJson(['get', 'inferenceservice', 'resnet-gpu', '-n', NS]), {
      timeoutMs: 60_000,
      intervalMs: 1_000,
      description: 'a runtime chosen for resnet-gpu',
      until: (o) => o.status?.clusterServingRuntimeName !== undefined,
    });
    expect(chosen.status.clusterServingRuntimeName).toBe(GPU_RUNTIME);
    const dep = await k.getJson(['get', 'deployment', 'resnet-gpu-predictor', '-n', NS]);
    const container = (dep.spec.template.spec.containers as Container[]).find((c) => c.name === 'kserve-container');
    expect(container?.image).toBe(imageName('server-cuda'));
    expect(container?.args).toContain('--execution_providers=cuda,cpu');
    expect(container?.resources?.limits?.['nvidia.com/gpu']).toBe('1');
    // The node has no nvidia.com/gpu: the scheduler says exactly that.
    const pod = await waitFor(async () => (await k.getJson<{ items: Obj[] }>(['get', 'pods', '-n', NS, '-l', 'serving.kserve.io/inferenceservice=resnet-gpu'])).items[0], {
      timeoutMs: 60_000,
      intervalMs: 1_000,
      description: 'resnet-gpu unschedulable for want of a GPU',
      until: (p) => (p?.status?.conditions as Condition[] | undefined)?.some((c) => c.type === 'PodScheduled' && c.reason === 'Unschedulable') === true,
    });
    const scheduled = (pod?.status?.conditions as Condition[]).find((c) => c.type === 'PodScheduled');
    expect(scheduled?.message).toContain('Insufficient nvidia.com/gpu');
  });

  it('the GPU runtime on this node with no GPU and the stub driver serves on the cpu, its log naming the CUDA failure', { timeout: 420_000 }, async () => {
    const { k } = suite;
    await k.apply([
      isvc(
        'resnet-stub',
        {
          runtime: GPU_RUNTIME,
          // "0" GPUs: the runtime's request overridden so the pod fits a node without one.
          resources: { requests: { cpu: '100m', memory: '256Mi' }, limits: { cpu: '1', memory: '2Gi', 'nvidia.com/gpu': '0' } },
          env: [{ name: 'LD_LIBRARY_PATH', value: '/opt/cuda-stub:/opt/kserve-ts/cuda/lib' }],
          volumeMounts: [{ name: 'cuda-stub', mountPath: '/opt/cuda-stub', readOnly: true }],
        },
        { volumes: [{ name: 'cuda-stub', hostPath: { path: stub.dir, type: 'Directory' } }] },
      ),
    ]);
    const ready = await k.waitIsvcReady('resnet-stub');
    expect(ready.status.clusterServingRuntimeName).toBe(GPU_RUNTIME);
    const [pod] = await k.readyPods('serving.kserve.io/inferenceservice=resnet-stub');
    const container = ((pod as Obj).spec.containers as Container[]).find((c) => c.name === 'kserve-container');
    expect(container?.image).toBe(imageName('server-cuda'));
    expect(container?.args).toContain('--execution_providers=cuda,cpu');

    const log = await k.node.kubectlOk(['logs', '-n', NS, (pod as Obj).metadata.name, '-c', 'kserve-container']);
    const warnings = log.split('\n').filter((l) => l.includes('CUDA execution provider unavailable'));
    expect(warnings, log).toHaveLength(1);
    expect(warnings[0]).toMatch(STUB_FAILURE);
    expect(log).not.toContain('Provider_GetHost');

    const base = `http://${await k.clusterIP('resnet-stub-predictor')}`;
    await waitRoutable(base, 'resnet-stub');
    const v2 = await request(`${base}/v2/models/resnet-stub/infer`, V2_IRIS);
    expect(v2.status, v2.body).toBe(200);
    const metrics = await request(`${base}/metrics`);
    expect(metrics.body).toMatch(/^kserve_model_info\{model_name="resnet-stub",model_version="",platform="onnxruntime_onnx",execution_provider="cpu"\} 1$/m);
  });
});

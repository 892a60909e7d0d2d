/**
 * `modelFormat: huggingface` on a real kube-apiserver: InferenceServices written as KServe's
 * docs write them for its huggingfaceserver. An embedding model (`--task=text_embedding`)
 * runs kserve-ts's text runtime with KServe's args after the runtime's; a generation model
 * says why no runtime fits while only kserve-ts's runtimes are installed and moves to KServe's
 * kserve-huggingfaceserver once that is installed; `--model_id` becomes the
 * storage-initializer's hf:// source; the webhook refuses a task KServe does not know.
 */
import type { V1Deployment } from '@kubernetes/client-node';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { type ControllerProcess, controllerSuiteHooks, startControllerSuite } from './controller-process.js';
import { type FakeKubelet, type TestControlPlane, waitFor } from './harness/index.js';
import { type Clients, conditionOf, isReady, isvcYaml, kubectlApply, kubectlApplyRejected, standardConfigYaml, waitForIsvc } from './kube-test-helpers.js';

vi.setConfig({ testTimeout: 150_000 });

const NS = 'hf';
let cp: TestControlPlane;
let c: Clients;
let kubelet: FakeKubelet;
let controller: ControllerProcess;

// KServe 0.20's config/runtimes/kserve-huggingfaceserver.yaml, as its chart installs it.
const KSERVE_HUGGINGFACESERVER = `apiVersion: serving.kserve.io/v1alpha1
kind: ClusterServingRuntime
metadata:
  name: kserve-huggingfaceserver
spec:
  annotations:
    prometheus.kserve.io/port: '8080'
    prometheus.kserve.io/path: "/metrics"
  supportedModelFormats:
    - name: huggingface
      version: "1"
      autoSelect: true
      priority: 1
  protocolVersions:
    - v2
    - v1
  containers:
    - name: kserve-container
      image: kserve/huggingfaceserver:v0.20.0
      args:
        - --model_name={{.Name}}
      resources:
        requests: { cpu: "1", memory: 2Gi }
        limits: { cpu: "1", memory: 2Gi }
`;

const CONFIG = standardConfigYaml({ disableIngressCreation: true });

/** A huggingface predictor with these args, as KServe's examples write it. */
const hfModel = (args: string[], storageUri?: string) =>
  `  predictor:
    model:
      modelFormat:
        name: huggingface
${storageUri ? `      storageUri: ${storageUri}\n` : ''}      args:
${args.map((a) => `        - ${a}`).join('\n')}
`;

async function deployment(name: string, until: (d: V1Deployment) => boolean = () => true): Promise<V1Deployment> {
  return waitFor(
    async () => {
      const d = await c.apps.readNamespacedDeployment({ name, namespace: NS });
      return until(d) ? d : undefined;
    },
    { description: `Deployment ${name}` },
  );
}

beforeAll(async () => {
  // Only kserve-ts's runtimes at first; KServe's is installed by a test below.
  ({ cp, c, kubelet, controller } = await startControllerSuite({ namespace: NS, identity: 'hf-replica', config: CONFIG }));
}, 45 * 60_000);

controllerSuiteHooks(() => ({ controller, kubelet, cp }));

describe('modelFormat huggingface', () => {
  it("an embedding model (KServe's --task=text_embedding) runs kserve-ts-text with KServe's args after the runtime's", async () => {
    await kubectlApply(cp, isvcYaml('bge', hfModel(['--model_name=bge', '--task=text_embedding', '--max_length=256'], 'hf://BAAI/bge-small-en-v1.5')), NS);
    const isvc = await waitForIsvc(c, NS, 'bge', isReady, 'Ready', 90_000);
    expect(isvc.status?.clusterServingRuntimeName).toBe('kserve-ts-text');
    const main = (await deployment('bge-predictor')).spec?.template.spec?.containers.find((k) => k.name === 'kserve-container');
    expect(main?.image).toBe('kserve-ts-server:0.1.0');
    expect(main?.args).toEqual([
      '--model_name=bge',
      '--model_dir=/mnt/models',
      '--http_port=8080',
      '--grpc_port=8081',
      '--model_name=bge',
      '--task=text_embedding',
      '--max_length=256',
    ]);
  });

  it('a cross-encoder (--task=sequence_classification) also runs kserve-ts-text', async () => {
    await kubectlApply(cp, isvcYaml('rr', hfModel(['--task=sequence_classification'], 'hf://BAAI/bge-reranker-base')), NS);
    const isvc = await waitForIsvc(c, NS, 'rr', isReady, 'Ready', 90_000);
    expect(isvc.status?.clusterServingRuntimeName).toBe('kserve-ts-text');
  });

  it('--model_id without storageUri becomes the storage-initializer source hf://ID[:REVISION]', async () => {
    await kubectlApply(cp, isvcYaml('byid', hfModel(['--model_id=BAAI/bge-small-en-v1.5', '--model_revision=main', '--task=text_embedding'])), NS);
    const dep = await deployment('byid-predictor');
    expect(dep.spec?.template.metadata?.annotations?.['internal.serving.kserve.io/storage-initializer-sourceuri']).toBe('hf://BAAI/bge-small-en-v1.5:main');
    const main = dep.spec?.template.spec?.containers.find((k) => k.name === 'kserve-container');
    expect(main?.env?.find((e) => e.name === 'STORAGE_URI')?.value).toBe('hf://BAAI/bge-small-en-v1.5:main');
  });

  it('a generation model says why no runtime fits, then runs KServe’s huggingfaceserver once it is installed', async () => {
    await kubectlApply(cp, isvcYaml('llm', hfModel(['--model_name=llm', '--model_id=meta-llama/Llama-3.2-1B', '--task=text_generation'])), NS);
    const failed = await waitForIsvc(c, NS, 'llm', (i) => conditionOf(i, 'PredictorReady')?.reason === 'NoSupportingRuntime', 'NoSupportingRuntime');
    expect(failed.status?.modelStatus?.lastFailureInfo?.message).toBe(
      "No runtime found to support specified framework/version (model format 'huggingface', protocol 'v1'; task 'text_generation' is a generative model: served by KServe's kserve-huggingfaceserver (its vLLM backend on GPUs) or another generation runtime (vLLM, llm-d))",
    );
    await kubectlApply(cp, KSERVE_HUGGINGFACESERVER);
    const isvc = await waitForIsvc(c, NS, 'llm', (i) => i.status?.clusterServingRuntimeName === 'kserve-huggingfaceserver', 'served by kserve-huggingfaceserver', 90_000);
    expect(conditionOf(isvc, 'PredictorReady')?.reason).not.toBe('NoSupportingRuntime');
    const main = (await deployment('llm-predictor')).spec?.template.spec?.containers.find((k) => k.name === 'kserve-container');
    expect(main?.image).toBe('kserve/huggingfaceserver:v0.20.0');
    expect(main?.args).toEqual(['--model_name=llm', '--model_name=llm', '--model_id=meta-llama/Llama-3.2-1B', '--task=text_generation']);
    // KServe's runtime downloads --model_id itself: no storage-initializer source is made up.
    const dep = await deployment('llm-predictor');
    expect(dep.spec?.template.metadata?.annotations?.['internal.serving.kserve.io/storage-initializer-sourceuri']).toBeUndefined();
  });

  it('with both installed, an embedding model still prefers kserve-ts-text and a model without --task goes to KServe (which infers it)', async () => {
    await kubectlApply(cp, KSERVE_HUGGINGFACESERVER);
    await kubectlApply(cp, isvcYaml('emb2', hfModel(['--task=text_embedding'], 'hf://org/emb')), NS);
    await kubectlApply(cp, isvcYaml('notask', hfModel(['--model_name=gpt2'], 'hf://openai-community/gpt2')), NS);
    expect((await waitForIsvc(c, NS, 'emb2', (i) => i.status?.clusterServingRuntimeName !== undefined, 'a runtime')).status?.clusterServingRuntimeName).toBe('kserve-ts-text');
    expect((await waitForIsvc(c, NS, 'notask', (i) => i.status?.clusterServingRuntimeName !== undefined, 'a runtime')).status?.clusterServingRuntimeName).toBe(
      'kserve-huggingfaceserver',
    );
  });

  it('an explicit kserve-ts-text for a generation task is refused in status, naming the tasks it serves', async () => {
    await kubectlApply(cp, isvcYaml('gen-explicit', `${hfModel(['--task=text_generation'], 'hf://org/gen')}      runtime: kserve-ts-text\n`), NS);
    const isvc = await waitForIsvc(c, NS, 'gen-explicit', (i) => conditionOf(i, 'PredictorReady')?.reason === 'NoSupportingRuntime', 'NoSupportingRuntime');
    expect(isvc.status?.modelStatus?.lastFailureInfo?.message).toBe(
      "Specified runtime does not serve task 'text_generation' (it serves text_embedding, sequence_classification) (model format 'huggingface', protocol 'v1'; task 'text_generation' is a generative model: served by KServe's kserve-huggingfaceserver (its vLLM backend on GPUs) or another generation runtime (vLLM, llm-d))",
    );
  });

  it('the webhook refuses a task KServe does not know, with the supported list', async () => {
    const err = await kubectlApplyRejected(cp, isvcYaml('typo', hfModel(['--task=text-embedding'], 'hf://org/m')), NS);
    expect(err).toContain(
      "spec.predictor.model.args: --task 'text-embedding' is not supported; supported tasks are: text_embedding, sequence_classification, fill_mask, token_classification, text_generation, text2text_generation",
    );
  });
});

/**
 * charts/: `helm lint` and `helm template` over a matrix of values, every rendered object
 * validated offline by kubeconform (strict, our CRDs included) and accepted by a real
 * kube-apiserver (`kubectl apply --dry-run=server`), the values schemas refusing bad values,
 * and `helm install` / `upgrade` against that apiserver keeping the webhook certificate.
 * Needs no node: the workloads are only created, never run (the real-node suites do that).
 */
import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { loadAllYaml } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HelmTools, type TestControlPlane, ensureHelmTools, startControlPlane, waitFor } from '../controller/harness/index.js';
import { isvcYaml } from '../controller/kube-test-helpers.js';
import { type Crd, writeCrdSchemas } from './crd-json-schema.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CHARTS = path.join(ROOT, 'charts');
const CRD = path.join(CHARTS, 'kserve-ts-crd');
const CONTROLLER = path.join(CHARTS, 'kserve-ts');
const RUNTIMES = path.join(CHARTS, 'kserve-ts-runtimes');
const NS = 'kserve';

// Kinds of other projects' CRDs (cert-manager, KServe's ClusterStorageContainer) that only
// optional values render: not in this apiserver and no schema to check them against.
const FOREIGN_KINDS = ['Certificate', 'Issuer', 'ClusterStorageContainer'];

interface Obj {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; annotations?: Record<string, string> };
  [key: string]: unknown;
}

let tools: HelmTools;
let cp: TestControlPlane;
let tmp: string;
let crdSchemas: string;

async function sh(cmd: string, args: readonly string[], input?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const p = run(cmd, [...args], { timeout: 60_000, maxBuffer: 32 << 20, env: { ...process.env, KUBECONFIG: cp?.kubeconfigPath ?? '' } });
    if (input !== undefined) p.child.stdin?.end(input);
    const { stdout, stderr } = await p;
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof err.code === 'number' ? err.code : -1, stdout: err.stdout ?? '', stderr: err.stderr ?? String(e) };
  }
}

async function template(chart: string, sets: readonly string[] = []): Promise<string> {
  const r = await sh(tools.helm, ['template', 'kserve-ts', chart, '-n', NS, ...sets.flatMap((s) => ['--set', s])]);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout;
}

const objects = (yaml: string): Obj[] => (loadAllYaml(yaml) as (Obj | null)[]).filter((o): o is Obj => o !== null);

async function kubeconform(yaml: string): Promise<void> {
  const r = await kubeconformRun(yaml);
  expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
  expect(r.stdout).toMatch(/Invalid: 0, Errors: 0/);
}

function kubeconformRun(yaml: string): ReturnType<typeof sh> {
  return sh(
    tools.kubeconform,
    [
      '-strict',
      '-summary',
      '-skip',
      FOREIGN_KINDS.join(','),
      '-schema-location',
      `${tools.kubernetesSchemas}/{{ .ResourceKind }}{{ .KindSuffix }}.json`,
      '-schema-location',
      `${crdSchemas}/{{ .ResourceKind }}{{ .KindSuffix }}.json`,
      '-',
    ],
    yaml,
  );
}

// Documents are filtered as text: client-node's YAML loader renames keys of known kinds
// (x-kubernetes-* in a CRD) to its model's names, which kubectl would then refuse.
async function dryRunServer(yaml: string): Promise<void> {
  const foreign = new RegExp(`^kind: (${FOREIGN_KINDS.join('|')})$`, 'm');
  const own = yaml
    .split(/^---$/m)
    .filter((doc) => !foreign.test(doc))
    .join('\n---\n');
  const r = await cp.kubectl(['apply', '--dry-run=server', '--validate=strict', '-n', NS, '-f', '-'], { input: own });
  expect(r.code, r.stderr).toBe(0);
}

beforeAll(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'kserve-ts-charts-'));
  crdSchemas = path.join(tmp, 'crd-schemas');
  [tools, cp] = await Promise.all([ensureHelmTools(), startControlPlane({ controllerManager: false })]);
  // The CRDs by their chart: the runtimes' dry runs need them, and the install test below
  // upgrades this same release.
  const crds = await sh(tools.helm, ['upgrade', '--install', 'kserve-ts-crd', CRD, '-n', NS, '--create-namespace']);
  expect(crds.code, crds.stderr).toBe(0);
  const est = await cp.kubectl(['wait', '--for=condition=Established', '--timeout=60s', 'crd', '-l', 'app.kubernetes.io/part-of=kserve-ts']);
  expect(est.code, est.stderr).toBe(0);
  const served = await cp.kubectl(['get', 'crd', '-l', 'app.kubernetes.io/part-of=kserve-ts', '-o', 'json']);
  expect(served.code, served.stderr).toBe(0);
  // One served CRD per file the chart ships, whatever kinds it grows.
  const shipped = readdirSync(path.join(CRD, 'files')).filter((f) => f.endsWith('.yaml'));
  expect(writeCrdSchemas((JSON.parse(served.stdout) as { items: Crd[] }).items, crdSchemas)).toHaveLength(shipped.length);
}, 900_000);

afterAll(async () => {
  await cp?.stop();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe('helm lint', () => {
  it.each([CRD, CONTROLLER, RUNTIMES])('%s lints clean (strict)', async (chart) => {
    const r = await sh(tools.helm, ['lint', '--strict', chart]);
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stdout).toMatch(/1 chart\(s\) linted, 0 chart\(s\) failed/);
  });
});

// Each row: a chart, the --set values, and what the rendered set must (not) contain.
const MATRIX: { chart: string; sets: string[]; has: string[]; lacks: string[] }[] = [
  { chart: CRD, sets: [], has: ['CustomResourceDefinition/inferenceservices.serving.kserve.io'], lacks: [] },
  {
    chart: CONTROLLER,
    sets: [],
    has: [
      'Deployment/kserve-ts',
      'Secret/kserve-ts-webhook-cert',
      'MutatingWebhookConfiguration/inferenceservice.serving.kserve.io',
      'PodDisruptionBudget/kserve-ts',
      'ConfigMap/inferenceservice-config',
    ],
    lacks: [],
  },
  {
    chart: CONTROLLER,
    sets: ['webhook.certificate=controller', 'replicas=1'],
    has: ['Deployment/kserve-ts'],
    lacks: ['Secret/kserve-ts-webhook-cert', 'MutatingWebhookConfiguration/inferenceservice.serving.kserve.io', 'PodDisruptionBudget/kserve-ts'],
  },
  {
    chart: CONTROLLER,
    sets: [
      'webhook.certificate=certManager',
      'leaderElection.enabled=false',
      'config.deploy.defaultDeploymentMode=Knative',
      'nodeSelector.pool=infra',
      'priorityClassName=system-cluster-critical',
    ],
    has: ['Certificate/kserve-ts-webhook', 'ValidatingWebhookConfiguration/inferenceservice.serving.kserve.io'],
    lacks: ['Secret/kserve-ts-webhook-cert'],
  },
  {
    chart: RUNTIMES,
    sets: [],
    has: ['ClusterServingRuntime/kserve-ts-onnx', 'ClusterServingRuntime/kserve-ts-onnx-gpu', 'ClusterServingRuntime/kserve-ts-tensorflow', 'ClusterServingRuntime/kserve-ts-text'],
    lacks: ['ClusterStorageContainer/kserve-ts-storage-initializer'],
  },
  { chart: RUNTIMES, sets: ['runtimes.onnxGpu.enabled=false'], has: ['ClusterServingRuntime/kserve-ts-onnx'], lacks: ['ClusterServingRuntime/kserve-ts-onnx-gpu'] },
  {
    chart: RUNTIMES,
    sets: ['runtimes.tensorflow.enabled=false', 'storageContainer.enabled=true'],
    has: ['ClusterServingRuntime/kserve-ts-onnx', 'ClusterStorageContainer/kserve-ts-storage-initializer'],
    lacks: ['ClusterServingRuntime/kserve-ts-tensorflow'],
  },
];

describe.each(MATRIX)('helm template $chart $sets', ({ chart, sets, has, lacks }) => {
  let yaml: string;
  beforeAll(async () => {
    yaml = await template(chart, sets);
  });

  it('renders what the values ask for', () => {
    const names = objects(yaml).map((o) => `${o.kind}/${o.metadata.name}`);
    for (const n of has) expect(names).toContain(n);
    for (const n of lacks) expect(names).not.toContain(n);
  });

  it('passes kubeconform (strict, offline, our CRDs included)', async () => {
    await kubeconform(yaml);
  });

  it('is accepted by the apiserver (kubectl apply --dry-run=server --validate=strict)', async () => {
    await dryRunServer(yaml);
  });
});

describe('the text runtime', () => {
  it('kserve-ts-text: huggingface at priority 3 for the tasks it lists in serving.kserve-ts.io/tasks, as controller/runtimes/kserve-ts.yaml', async () => {
    const rendered = objects(await template(RUNTIMES));
    const text = rendered.find((o) => o.kind === 'ClusterServingRuntime' && o.metadata.name === 'kserve-ts-text') as
      { metadata: { annotations?: Record<string, string> }; spec: { supportedModelFormats: unknown[]; containers: { image: string }[] } } | undefined;
    expect(text?.metadata.annotations?.['serving.kserve-ts.io/tasks']).toBe('text_embedding,sequence_classification');
    expect(text?.spec.supportedModelFormats).toEqual([{ name: 'huggingface', version: '1', autoSelect: true, priority: 3 }]);
    expect(text?.spec.containers[0]?.image).toBe('kserve-ts-server:0.1.0');
    // Runtimes that list no tasks carry no annotation: they serve every task of their formats.
    const onnx = rendered.find((o) => o.kind === 'ClusterServingRuntime' && o.metadata.name === 'kserve-ts-onnx');
    expect(onnx?.metadata.annotations?.['serving.kserve-ts.io/tasks']).toBeUndefined();
  });
});

describe('the GPU runtime', () => {
  it('kserve-ts-onnx-gpu: the CUDA image, --execution_providers=cuda,cpu after the KServe flags, and the GPU in its own resources; the CPU runtime keeps the shared ones', async () => {
    const rendered = objects(await template(RUNTIMES));
    const container = (name: string) =>
      (
        rendered.find((o) => o.kind === 'ClusterServingRuntime' && o.metadata.name === name) as
          { spec: { containers: { image: string; args: string[]; resources: unknown }[] } } | undefined
      )?.spec.containers[0];
    const gpu = container('kserve-ts-onnx-gpu');
    expect(gpu?.image).toBe('kserve-ts-server-cuda:0.1.0');
    expect(gpu?.args).toEqual(['--model_name={{.Name}}', '--model_dir=/mnt/models', '--http_port=8080', '--grpc_port=8081', '--execution_providers=cuda,cpu']);
    expect(gpu?.resources).toEqual({ requests: { cpu: '1', memory: '2Gi' }, limits: { cpu: '4', memory: '8Gi', 'nvidia.com/gpu': '1' } });
    const cpu = container('kserve-ts-onnx');
    expect(cpu?.args).toEqual(['--model_name={{.Name}}', '--model_dir=/mnt/models', '--http_port=8080', '--grpc_port=8081']);
    expect(cpu?.resources).toEqual({ requests: { cpu: '1', memory: '512Mi' }, limits: { cpu: '1', memory: '1Gi' } });
  });
});

describe('kubeconform catches what the apiserver would refuse', () => {
  it('an unknown field in one of our custom resources (CRD schemas are strict)', async () => {
    const yaml = (await template(RUNTIMES)).replace('  protocolVersions:', '  protocolVersionz: [v1]\n  protocolVersions:');
    const r = await kubeconformRun(yaml);
    expect(r.code).not.toBe(0);
    expect(r.stdout).toMatch(/ClusterServingRuntime kserve-ts-onnx is invalid.*protocolVersionz/);
  });

  it('an unknown field in a built-in kind', async () => {
    const yaml = (await template(CONTROLLER)).replace('  minAvailable:', '  minAvailabel: 1\n  minAvailable:');
    const r = await kubeconformRun(yaml);
    expect(r.code).not.toBe(0);
    expect(r.stdout).toMatch(/PodDisruptionBudget kserve-ts is invalid.*minAvailabel/);
  });
});

describe('values schemas', () => {
  it.each([
    [CONTROLLER, 'webhook.certificate=self-made', /webhook\.certificate|certificate/],
    [CONTROLLER, 'replicas=0', /replicas/],
    [CONTROLLER, 'image.pullPolicy=Sometimes', /pullPolicy/],
    [RUNTIMES, 'runtimes.onnx.name=Not_A_Name', /name/],
    [RUNTIMES, 'storageContainer.enabled=maybe', /enabled/],
    [RUNTIMES, 'runtimes.onnxGpu.args[0]=', /args/],
  ])('%s refuses --set %s', async (chart, set, field) => {
    const r = await sh(tools.helm, ['template', 'x', chart, '--set', set]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/values don't meet the specifications of the schema/);
    expect(r.stderr).toMatch(field);
  });
});

describe('helm install and upgrade against the apiserver', () => {
  const secret = async (): Promise<Record<string, string>> => {
    const r = await cp.kubectl(['get', 'secret', '-n', NS, 'kserve-ts-webhook-cert', '-o', 'json']);
    expect(r.code, r.stderr).toBe(0);
    return (JSON.parse(r.stdout) as { data: Record<string, string> }).data;
  };
  const caBundles = async (): Promise<string[]> => {
    const out: string[] = [];
    for (const kind of ['mutatingwebhookconfiguration', 'validatingwebhookconfiguration']) {
      const r = await cp.kubectl(['get', kind, 'inferenceservice.serving.kserve.io', '-o', 'json']);
      expect(r.code, r.stderr).toBe(0);
      for (const w of (JSON.parse(r.stdout) as { webhooks: { clientConfig: { caBundle: string } }[] }).webhooks) out.push(w.clientConfig.caBundle);
    }
    return out;
  };
  // One caBundle per webhook the controller chart declares, whatever kinds it grows.
  const everyWebhook = async (pem: string): Promise<string[]> => {
    const configurations = objects(await template(CONTROLLER)).filter((o) => o.kind === 'MutatingWebhookConfiguration' || o.kind === 'ValidatingWebhookConfiguration');
    const webhooks = configurations.flatMap((o) => (o as unknown as { webhooks?: unknown[] }).webhooks ?? []);
    expect(webhooks.length).toBeGreaterThan(0);
    return webhooks.map(() => pem);
  };

  it('installs the three charts; the webhook certificate is for its Service, signed by the CA in the configurations, and kept by helm upgrade', async () => {
    for (const [release, chart] of [
      ['kserve-ts-crd', CRD],
      ['kserve-ts', CONTROLLER],
      ['kserve-ts-runtimes', RUNTIMES],
    ] as const) {
      const r = await sh(tools.helm, ['upgrade', '--install', release, chart, '-n', NS]);
      expect(r.code, r.stderr).toBe(0);
    }
    const first = await secret();
    const [caPem, leafPem] = [first['ca.crt'], first['tls.crt']];
    if (!caPem || !leafPem) throw new Error(`certificate Secret lacks ca.crt or tls.crt: ${Object.keys(first).join(', ')}`);
    const ca = new X509Certificate(Buffer.from(caPem, 'base64'));
    const leaf = new X509Certificate(Buffer.from(leafPem, 'base64'));
    expect(leaf.verify(ca.publicKey)).toBe(true);
    expect(leaf.checkHost('kserve-ts-webhook.kserve.svc')).toBe('kserve-ts-webhook.kserve.svc');
    expect(await caBundles()).toEqual(await everyWebhook(caPem));

    const up = await sh(tools.helm, ['upgrade', 'kserve-ts', CONTROLLER, '-n', NS, '--set', 'logLevel=debug']);
    expect(up.code, up.stderr).toBe(0);
    expect(await secret()).toEqual(first);
    expect(await caBundles()).toEqual(await everyWebhook(caPem));

    const runtimes = await waitFor(
      async () => {
        const r = await cp.kubectl(['get', 'clusterservingruntimes', '-o', 'name']);
        return r.code === 0 && r.stdout.includes('kserve-ts-onnx') ? r.stdout : undefined;
      },
      { timeoutMs: 10_000 },
    );
    expect(runtimes).toMatch(/kserve-ts-tensorflow/);
  });

  // Deleting a CRD deletes every object of its kind: without the keep policy, `helm uninstall
  // kserve-ts-crd` took every InferenceService in the cluster with it (#27).
  it('uninstalling kserve-ts-crd keeps the CRDs and the InferenceServices (helm.sh/resource-policy: keep); installing it again adopts them', async () => {
    const keep = (yaml: string) => objects(yaml).map((o) => o.metadata.annotations?.['helm.sh/resource-policy']);
    // One CRD per file the chart ships, whatever kinds it grows.
    const shipped = readdirSync(path.join(CRD, 'files')).filter((f) => f.endsWith('.yaml'));
    expect(keep(await template(CRD))).toEqual(shipped.map(() => 'keep'));
    expect(keep(await template(CRD, ['keepOnUninstall=false']))).toEqual(shipped.map(() => undefined));

    // docs/kubernetes.md's order: the controller (and its webhooks) and the runtimes first.
    for (const release of ['kserve-ts-runtimes', 'kserve-ts']) {
      const r = await sh(tools.helm, ['uninstall', release, '-n', NS, '--wait']);
      expect(r.code, r.stderr).toBe(0);
    }
    const isvc = isvcYaml('kept', '  predictor:\n    model: { modelFormat: { name: onnx }, storageUri: "s3://models/iris" }\n');
    const created = await cp.kubectl(['apply', '-n', 'default', '-f', '-'], { input: isvc });
    expect(created.code, created.stderr).toBe(0);

    const un = await sh(tools.helm, ['uninstall', 'kserve-ts-crd', '-n', NS, '--wait']);
    expect(un.code, un.stderr).toBe(0);
    expect(`${un.stdout}${un.stderr}`).toMatch(/kept due to the resource policy/);
    const crds = await cp.kubectl(['get', 'crd', '-l', 'app.kubernetes.io/part-of=kserve-ts', '-o', 'json']);
    expect(crds.code, crds.stderr).toBe(0);
    const items = (JSON.parse(crds.stdout) as { items: { metadata: { name: string; deletionTimestamp?: string } }[] }).items;
    // Every CRD the chart ships (file <group>_<plural>.yaml is CRD <plural>.<group>), kept.
    const names = shipped.map((f) => f.replace(/\.yaml$/, '').split('_')).map(([group, plural]) => `${plural}.${group}`);
    expect(names).toContain('inferenceservices.serving.kserve.io');
    expect(items.map((c) => c.metadata.name).sort()).toEqual(names.sort());
    expect(items.filter((c) => c.metadata.deletionTimestamp)).toEqual([]);
    const still = await cp.kubectl(['get', 'inferenceservice', 'kept', '-n', 'default', '-o', 'jsonpath={.metadata.name}']);
    expect(still, still.stderr).toMatchObject({ code: 0, stdout: 'kept' });

    const again = await sh(tools.helm, ['install', 'kserve-ts-crd', CRD, '-n', NS]);
    expect(again.code, again.stderr).toBe(0);
  });
});

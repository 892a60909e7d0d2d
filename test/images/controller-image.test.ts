/**
 * The controller image: without a kubeconfig or in-cluster credentials it exits with a
 * clear message; against the test kube-apiserver (host network) it installs its CRDs and
 * reconciles an InferenceService into a Deployment.
 */
import { chmodSync, copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startControlPlane, type TestControlPlane } from '../controller/harness/index.js';
import { ROOT } from '../helpers/server.js';
import { HARDENED, docker, imageName, removeContainer, requireImage, runDetached } from './docker.js';

const IMAGE = imageName('controller');
const NAME = `kserve-ts-controller-test-${process.pid}`;
let cp: TestControlPlane;
const CONFIG_YAML = readFileSync(path.join(ROOT, 'controller/runtimes/inferenceservice-config.yaml'), 'utf8');
const RUNTIME_YAML = readFileSync(path.join(ROOT, 'controller/runtimes/kserve-ts.yaml'), 'utf8');
const ISVC_YAML = `apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata: { name: iris, namespace: default }
spec:
  predictor:
    model: { modelFormat: { name: onnx }, storageUri: "s3://models/iris" }
`;
let kubeDir: string;

beforeAll(async () => {
  await requireImage(IMAGE);
  cp = await startControlPlane();
  expect((await cp.kubectl(['create', 'namespace', 'kserve'])).code).toBe(0);
  expect((await cp.kubectl(['apply', '-f', '-'], { input: CONFIG_YAML })).code).toBe(0);
  kubeDir = mkdtempSync(path.join(tmpdir(), 'kserve-ts-image-kube-'));
  copyFileSync(cp.kubeconfigPath, path.join(kubeDir, 'config'));
  chmodSync(kubeDir, 0o755);
  chmodSync(path.join(kubeDir, 'config'), 0o644);
});

afterAll(async () => {
  await removeContainer(NAME);
  await cp?.stop();
  if (kubeDir) rmSync(kubeDir, { recursive: true, force: true });
});

describe('kserve-ts-controller image', () => {
  it('without a kubeconfig or in-cluster credentials exits with a clear message', async () => {
    const r = await docker(['run', '--rm', '--network', 'none', ...HARDENED, IMAGE], 60_000);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/kubeconfig|in-cluster|KUBERNETES_SERVICE_HOST/i);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('installs its CRDs and reconciles an InferenceService against the API server', async () => {
    const run = await docker([
      ...runDetached(NAME),
      '-v',
      `${kubeDir}:/kube:ro`,
      IMAGE,
      '--kubeconfig=/kube/config',
      '--namespace=kserve',
      '--install-crds',
      '--health-port=0',
      '--webhook-port=0',
      '--leader-elect=false',
    ]);
    expect(run.code, run.stderr).toBe(0);
    const deadline = Date.now() + 90_000;
    const logs = async () => {
      const l = await docker(['logs', NAME]);
      return l.stdout + l.stderr;
    };
    // The runtime and the InferenceService can be applied once the container's CRDs are in.
    let applied = false;
    while (!applied && Date.now() < deadline) {
      const rt = await cp.kubectl(['apply', '-f', '-'], { input: RUNTIME_YAML });
      const isvc = rt.code === 0 ? await cp.kubectl(['apply', '-f', '-'], { input: ISVC_YAML }) : rt;
      applied = isvc.code === 0;
      if (!applied) await new Promise((r) => setTimeout(r, 1000));
    }
    expect(applied, await logs()).toBe(true);
    let image = '';
    while (!image && Date.now() < deadline) {
      const r = await cp.kubectl(['get', 'deployment', '-n', 'default', 'iris-predictor', '-o', 'jsonpath={.spec.template.spec.containers[0].image}']);
      image = r.code === 0 ? r.stdout.trim() : '';
      if (!image) await new Promise((r) => setTimeout(r, 500));
    }
    expect(image, await logs()).toBe('kserve-ts-server:0.1.0');
  });
});

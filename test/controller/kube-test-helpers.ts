/** Small helpers over a test control plane: apply YAML with kubectl, read objects, wait for conditions. */
import { AppsV1Api, AutoscalingV2Api, CoreV1Api, CustomObjectsApi, CoordinationV1Api } from '@kubernetes/client-node';
import { expect } from 'vitest';
import type { Condition, InferenceService } from '../../controller/api/inference-service.js';
import { isNotFound } from '../../controller/kube/api-errors.js';
import { type TestControlPlane, waitFor } from './harness/index.js';

export interface Clients {
  core: CoreV1Api;
  apps: AppsV1Api;
  autoscaling: AutoscalingV2Api;
  custom: CustomObjectsApi;
  coordination: CoordinationV1Api;
}

export function clientsFor(cp: TestControlPlane): Clients {
  const kc = cp.kubeConfig;
  return {
    core: kc.makeApiClient(CoreV1Api),
    apps: kc.makeApiClient(AppsV1Api),
    autoscaling: kc.makeApiClient(AutoscalingV2Api),
    custom: kc.makeApiClient(CustomObjectsApi),
    coordination: kc.makeApiClient(CoordinationV1Api),
  };
}

/** `kubectl apply -f -`; fails the test with kubectl's message unless `expectFailure`. */
export async function kubectlApply(cp: TestControlPlane, yaml: string, namespace?: string): Promise<string> {
  const r = await cp.kubectl(['apply', ...(namespace ? ['-n', namespace] : []), '-f', '-'], { input: yaml });
  if (r.code !== 0) throw new Error(`kubectl apply failed (${r.code}): ${r.stderr}`);
  return r.stdout;
}

export async function kubectlApplyRejected(cp: TestControlPlane, yaml: string, namespace?: string): Promise<string> {
  const r = await cp.kubectl(['apply', ...(namespace ? ['-n', namespace] : []), '-f', '-'], { input: yaml });
  expect(r.code, `kubectl apply unexpectedly succeeded: ${r.stdout}`).not.toBe(0);
  return r.stderr;
}

/**
 * Creates a namespace and waits for its `default` ServiceAccount: until the controller
 * manager has made it, pod creation there is rejected and the ReplicaSet controller backs
 * off exponentially, which on a loaded machine can delay a Deployment by a minute or more.
 */
export async function createNamespace(c: Clients, name: string): Promise<void> {
  await c.core.createNamespace({ body: { metadata: { name } } });
  await waitFor(() => c.core.readNamespacedServiceAccount({ name: 'default', namespace: name }), {
    description: `the default ServiceAccount of namespace ${name}`,
    timeoutMs: 60_000,
  });
}

export async function getIsvc(c: Clients, namespace: string, name: string): Promise<InferenceService> {
  return (await c.custom.getNamespacedCustomObject({ group: 'serving.kserve.io', version: 'v1beta1', namespace, plural: 'inferenceservices', name })) as InferenceService;
}

export function conditionOf(isvc: InferenceService, type: string): Condition | undefined {
  return isvc.status?.conditions?.find((c) => c.type === type);
}

/** Waits until the ISVC satisfies `until`, reporting its status on timeout. */
export function waitForIsvc(
  c: Clients,
  namespace: string,
  name: string,
  until: (i: InferenceService) => boolean,
  description: string,
  timeoutMs = 60_000,
): Promise<InferenceService> {
  return waitFor(() => getIsvc(c, namespace, name), { until, description: `${namespace}/${name}: ${description}`, timeoutMs, intervalMs: 250 });
}

export const isReady = (i: InferenceService): boolean => conditionOf(i, 'Ready')?.status === 'True';

export function isvcYaml(name: string, spec: string, annotations: Record<string, string> = {}): string {
  const ann = Object.entries(annotations)
    .map(([k, v]) => `    ${k}: "${v}"`)
    .join('\n');
  return `apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata:
  name: ${name}
${ann ? `  annotations:\n${ann}\n` : ''}spec:
${spec}`;
}

export async function notFound(p: Promise<unknown>): Promise<boolean> {
  try {
    await p;
    return false;
  } catch (err) {
    return isNotFound(err);
  }
}

/**
 * An inferenceservice-config ConfigMap in Standard mode: KServe's example domain with `ingress`
 * merged in, the kserve-ts storage-initializer, and any further keys (JSON values) as given.
 */
export function standardConfigYaml(ingress: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): string {
  const data: Record<string, unknown> = {
    deploy: { defaultDeploymentMode: 'Standard' },
    ingress: { ingressDomain: 'example.com', urlScheme: 'http', ...ingress },
    ...extra,
    storageInitializer: { image: 'kserve-ts-storage-initializer:0.1.0' },
  };
  const lines = Object.entries(data).map(([k, v]) => `  ${k}: '${JSON.stringify(v)}'`);
  return `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: inferenceservice-config\n  namespace: kserve\ndata:\n${lines.join('\n')}\n`;
}

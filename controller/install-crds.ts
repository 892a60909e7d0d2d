/**
 * `--install-crds`: server-side applies the CRDs shipped in controller/crds and waits
 * until the API server reports them Established, so the watches that follow succeed.
 */
import { readFile, readdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ApiextensionsV1Api, type KubernetesObject, type V1CustomResourceDefinition, loadYaml } from '@kubernetes/client-node';
import { applyObject } from './kube/apply.js';
import type { KubeClients } from './kube/clients.js';

/** controller/crds, found from this module whether it runs from source or from dist/. */
export function crdDirectory(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = path.join(dir, 'controller', 'crds');
    if (existsSync(path.join(dir, 'package.json')) && existsSync(candidate)) return candidate;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('controller/crds not found above ' + fileURLToPath(import.meta.url));
    dir = parent;
  }
}

export async function readCrds(dir = crdDirectory()): Promise<V1CustomResourceDefinition[]> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.yaml')).sort();
  return Promise.all(files.map(async (f) => loadYaml<V1CustomResourceDefinition>(await readFile(path.join(dir, f), 'utf8'))));
}

export async function installCrds(clients: KubeClients, timeoutMs = 30_000): Promise<string[]> {
  const crds = await readCrds();
  for (const crd of crds) await applyObject(clients.objects, crd as KubernetesObject);
  const api = clients.kubeConfig.makeApiClient(ApiextensionsV1Api);
  const deadline = Date.now() + timeoutMs;
  for (const crd of crds) {
    const name = crd.metadata!.name!;
    for (;;) {
      const current = await api.readCustomResourceDefinition({ name });
      if (current.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')) break;
      if (Date.now() > deadline) throw new Error(`CRD ${name} not Established after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return crds.map((c) => c.metadata!.name!);
}

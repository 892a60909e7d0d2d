/**
 * Golden pod-webhook cases, one per file pair in golden/: `<case>.original.yaml` is the pod
 * the API server sends, `<case>.expected.yaml` the pod it must store, and the optional
 * `<case>.cluster.yaml` holds the ServiceAccounts, Secrets and `inferenceservice-config` the
 * webhook may read. The webhook's JSON patch is applied to the original, so the patch itself
 * is what is checked; a second invocation on the result must change nothing.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import type { AdmissionRequest } from '../../../controller/webhooks/admission.js';
import { applyPatch, type JsonPatchOperation } from '../../../controller/webhooks/json-patch.js';
import { podWebhook } from '../../../controller/webhooks/pod/pod-webhook.js';
import { fakeCluster } from './fake-cluster.js';

const DIR = join(import.meta.dirname, 'golden');
const cases = readdirSync(DIR)
  .filter((f) => f.endsWith('.original.yaml'))
  .map((f) => f.slice(0, -'.original.yaml'.length))
  .sort();

const load = (file: string): unknown => yaml.load(readFileSync(join(DIR, file), 'utf8'));

function createRequest(pod: unknown, uid = 'golden'): AdmissionRequest {
  const namespace = (pod as { metadata?: { namespace?: string } }).metadata?.namespace ?? 'default';
  return { uid, kind: { group: '', version: 'v1', kind: 'Pod' }, namespace, operation: 'CREATE', object: pod };
}

async function admit(pod: unknown, cluster: ReturnType<typeof fakeCluster>): Promise<JsonPatchOperation[]> {
  const handler = podWebhook({ getConfig: () => cluster.config, credentials: cluster.source, controllerNamespace: 'kserve' });
  const verdict = await handler(createRequest(pod));
  if (!verdict.allowed) throw new Error(`denied: ${verdict.status.message}`);
  return verdict.patch ?? [];
}

describe('pod webhook golden cases', () => {
  it('has the cases the brief lists', () => {
    expect(cases.length).toBeGreaterThanOrEqual(12);
  });

  it.each(cases)('%s', async (name) => {
    const original = load(`${name}.original.yaml`);
    const expected = load(`${name}.expected.yaml`);
    const clusterFile = `${name}.cluster.yaml`;
    const cluster = fakeCluster(existsSync(join(DIR, clusterFile)) ? yaml.loadAll(readFileSync(join(DIR, clusterFile), 'utf8')) : []);

    const patch = await admit(original, cluster);
    const mutated = applyPatch(original, patch);
    expect(mutated).toEqual(expected);

    // Reinvocation (reinvocationPolicy: IfNeeded) must be a no-op.
    expect(await admit(mutated, cluster)).toEqual([]);
  });
});

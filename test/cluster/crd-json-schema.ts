/**
 * kubeconform schemas for our own CRDs, made from the CRDs as the API server serves them (read
 * back with kubectl, so the keys are the wire format's: client-node's YAML loader would turn
 * `x-kubernetes-*` and `enum` into its model's property names),
 * so custom resources a chart renders are validated as strictly as built-in kinds: every
 * object schema that lists its properties and does not preserve unknown fields gets
 * `additionalProperties: false`, which is what the API server's pruning enforces silently.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

type Schema = { [key: string]: unknown };

export interface Crd {
  spec: { group: string; names: { kind: string }; versions: { name: string; schema: { openAPIV3Schema: Schema } }[] };
}

function strict(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(strict);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Schema = {};
  for (const [k, v] of Object.entries(schema)) out[k] = strict(v);
  if (out.properties && out.additionalProperties === undefined && out['x-kubernetes-preserve-unknown-fields'] !== true) {
    out.additionalProperties = false;
  }
  return out;
}

/** Writes `<kind>-<group's first label>-<version>.json` (kubeconform's `{{ .ResourceKind }}{{ .KindSuffix }}`). */
export function writeCrdSchemas(crds: readonly Crd[], outDir: string): string[] {
  mkdirSync(outDir, { recursive: true });
  const written: string[] = [];
  for (const crd of crds) {
    const group = crd.spec.group.split('.')[0];
    for (const v of crd.spec.versions) {
      const name = `${crd.spec.names.kind.toLowerCase()}-${group}-${v.name}.json`;
      writeFileSync(path.join(outDir, name), JSON.stringify(strict(v.schema.openAPIV3Schema)));
      written.push(name);
    }
  }
  return written;
}

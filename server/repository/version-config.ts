/**
 * The version fields of `config.pbtxt`: Triton's `version_policy` and TF Serving's
 * `version_labels` (a kserve-ts extension to Triton's schema, in TF Serving's own syntax:
 * `version_labels { key: "stable" value: 1 }`). See docs/model-repository.md.
 */
import type { VersionPolicy } from '../backend/model-config.js';
import type { PbMessage, PbValue } from './pbtxt.js';

const POLICIES = ['latest', 'all', 'specific'] as const;

function message(v: PbValue | undefined, what: string): PbMessage {
  if (!(v instanceof Map)) throw new Error(`config.pbtxt: '${what}' must be a message`);
  return v;
}

/** A version number as Triton writes it (int64 >= 0), kept as the folder's label. */
function versionNumber(v: PbValue | undefined, what: string): string {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw new Error(`config.pbtxt: ${what} must be a non-negative integer version`);
  return String(v);
}

/** `version_policy { latest { num_versions: N } | all {} | specific { versions: [...] } }`; a oneof, as in Triton. */
export function parseVersionPolicy(values: readonly PbValue[] | undefined): VersionPolicy | undefined {
  if (values === undefined) return undefined;
  const policy = message(values[values.length - 1], 'version_policy');
  const chosen = POLICIES.filter((k) => policy.has(k));
  const unknown = [...policy.keys()].filter((k) => !(POLICIES as readonly string[]).includes(k));
  if (chosen.length !== 1 || unknown.length > 0) {
    throw new Error(`config.pbtxt: version_policy needs exactly one of latest, all, specific; got [${[...policy.keys()].join(', ')}]`);
  }
  const kind = chosen[0] as (typeof POLICIES)[number];
  const body = message(policy.get(kind)?.at(-1), `version_policy.${kind}`);
  if (kind === 'all') return { kind };
  if (kind === 'latest') {
    const n = body.get('num_versions')?.at(-1);
    // Triton's default for an empty `latest {}` is 1 too (proto3 zero is "unset").
    if (n === undefined) return { kind, numVersions: 1 };
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 1) throw new Error('config.pbtxt: version_policy latest num_versions must be a positive integer');
    return { kind, numVersions: n };
  }
  const versions = (body.get('versions') ?? []).map((v) => versionNumber(v, 'every version_policy specific version'));
  if (versions.length === 0) throw new Error('config.pbtxt: version_policy specific needs at least one version');
  return { kind, versions: [...new Set(versions)] };
}

/**
 * `version_labels` entries (a protobuf map<string, int64>, written as repeated key/value
 * messages). A label may not be a number: `/versions/2` must mean version 2, never a label.
 */
export function parseVersionLabels(values: readonly PbValue[] | undefined): ReadonlyMap<string, string> {
  const labels = new Map<string, string>();
  for (const v of values ?? []) {
    const entry = message(v, 'version_labels');
    const key = entry.get('key')?.at(-1);
    if (typeof key !== 'string' || key === '') throw new Error(`config.pbtxt: version_labels need a 'key' string and a 'value' version`);
    if (/^\d+$/.test(key)) throw new Error(`config.pbtxt: version label '${key}' is a number; labels must not look like versions`);
    if (labels.has(key)) throw new Error(`config.pbtxt: version label '${key}' is given twice`);
    labels.set(key, versionNumber(entry.get('value')?.at(-1), `version label '${key}'`));
  }
  return labels;
}

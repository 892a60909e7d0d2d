/** The version fields of `config.pbtxt`: Triton's `version_policy`. See docs/model-repository.md. */
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

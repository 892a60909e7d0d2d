/**
 * Which of a model's version folders are served, by its `version_policy` (Triton's
 * semantics). Without a policy every version is served: kserve-ts's behaviour before
 * version policies existed, kept as the default (docs/model-repository.md says why).
 */
import type { VersionPolicy } from '../backend/model-config.js';
import type { VersionFolder } from './model-source.js';

export interface VersionSelection {
  /** The folders to load, ascending; the last one is the default version. */
  readonly selected: readonly VersionFolder[];
  /** Versions a `specific` policy names that have no folder (yet). */
  readonly missing: readonly string[];
}

/**
 * Applies `policy` to `folders` (ascending, as discoverVersions lists them). An unversioned
 * model (one folder, no number) is served as it is: a policy selects among numbers only.
 * Throws when the policy leaves nothing to serve, as Triton fails such a load.
 */
export function selectVersions(folders: readonly VersionFolder[], policy: VersionPolicy | undefined): VersionSelection {
  if (policy === undefined || policy.kind === 'all' || folders.every((f) => f.version === undefined)) return { selected: folders, missing: [] };
  if (policy.kind === 'latest') return { selected: folders.slice(Math.max(0, folders.length - policy.numVersions)), missing: [] };
  const present = folders.map((f) => f.version ?? '');
  // Folder names are numbers to Triton: folder "01" is version 1.
  const wanted = new Set(policy.versions.map(Number));
  const selected = folders.filter((f) => wanted.has(Number(f.version)));
  const missing = policy.versions.filter((v) => !present.some((p) => Number(p) === Number(v)));
  if (selected.length === 0) {
    throw new Error(`version_policy specific [${policy.versions.join(', ')}] selects none of the version folders [${present.join(', ')}]`);
  }
  return { selected, missing };
}

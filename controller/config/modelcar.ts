/**
 * The modelcar keys of the `storageInitializer` section (KServe `StorageInitializerConfig`:
 * `enableModelcar`, `cpuModelcar`, `memoryModelcar`, `uidModelcar`, and the newer switches
 * `enableOciModelSupport` / `ociModelMode`). They decide how the pod webhook serves an
 * `oci://` storage URI: as a sidecar holding the model image, or not at all.
 *
 * Differences from KServe, on purpose: `ociModelMode` `native` and `fetch` (an image volume,
 * a registry pull by the storage-initializer) are refused at start-up instead of being
 * accepted, since kserve-ts has only the modelcar path; the quantities are checked against
 * the Kubernetes quantity grammar here (cli/quantity.ts), where KServe parses them with `resource.ParseQuantity`.
 */
import { parseQuantity } from '../../cli/quantity.js';
import { boolField, ConfigError, stringField } from './section.js';

export interface ModelcarConfig {
  /** Whether `oci://` URIs are served (KServe `ResolveOciModelMode(...) != ""`). */
  enabled: boolean;
  /** Request and limit of the `modelcar` and `modelcar-init` containers. */
  cpu: string;
  memory: string;
  /** `runAsUser` for the modelcar and the model server: reaching another container's `/proc/<pid>/root` needs the same user (or root). */
  uid: number | undefined;
}

/** KServe's `CpuModelcarDefault` / `MemoryModelcarDefault`. */
export const MODELCAR_DEFAULTS = Object.freeze({ cpu: '10m', memory: '15Mi' });

const SUPPORTED_MODES: readonly string[] = ['modelcar'];
const KSERVE_ONLY_MODES: readonly string[] = ['native', 'fetch'];

export function parseModelcarConfig(key: string, section: Record<string, unknown>): ModelcarConfig {
  const mode = stringField(key, section, 'ociModelMode', '');
  if (mode !== '' && !SUPPORTED_MODES.includes(mode)) {
    const why = KSERVE_ONLY_MODES.includes(mode) ? 'is a KServe mode kserve-ts does not have' : 'is not an OCI model mode';
    throw new ConfigError(key, `'ociModelMode' '${mode}' ${why} (supported: ${SUPPORTED_MODES.join(', ')})`);
  }
  const enabled = mode !== '' || boolField(key, section, 'enableModelcar', false) || boolField(key, section, 'enableOciModelSupport', false);
  return {
    enabled,
    cpu: quantityField(key, section, 'cpuModelcar', MODELCAR_DEFAULTS.cpu),
    memory: quantityField(key, section, 'memoryModelcar', MODELCAR_DEFAULTS.memory),
    uid: uidField(key, section, 'uidModelcar'),
  };
}

export function quantityField(key: string, section: Record<string, unknown>, field: string, fallback: string): string {
  const value = stringField(key, section, field, fallback);
  const v = parseQuantity(value);
  if (v === undefined || v < 0 || /^[+-]|\s/.test(value)) throw new ConfigError(key, `'${field}' '${value}' is not a Kubernetes quantity (for example 10m, 15Mi)`);
  return value;
}

/** A JSON integer, as Go's `*int64` unmarshals it (a string is refused there too). */
function uidField(key: string, section: Record<string, unknown>, field: string): number | undefined {
  const v = section[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw new ConfigError(key, `'${field}' must be a non-negative integer user id`);
  return v;
}

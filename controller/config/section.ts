/**
 * Helpers for the `inferenceservice-config` ConfigMap: every key holds a JSON document,
 * parsed once when the ConfigMap is read and validated here, so the rest of the
 * controller sees typed values or a startup/reconcile error naming the key and field.
 */

export class ConfigError extends Error {
  constructor(key: string, message: string) {
    super(`inferenceservice-config '${key}': ${message}`);
    this.name = 'ConfigError';
  }
}

/** Parses one ConfigMap key's JSON (absent → {}). */
export function parseSection(key: string, raw: string | undefined): Record<string, unknown> {
  if (raw === undefined || raw.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (err) {
    throw new ConfigError(key, `not valid JSON (${(err as Error).message})`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ConfigError(key, 'must be a JSON object');
  }
  return value as Record<string, unknown>;
}

export function stringField(key: string, section: Record<string, unknown>, field: string, fallback: string): string {
  const v = section[field];
  if (v === undefined || v === null || v === '') return fallback;
  if (typeof v !== 'string') throw new ConfigError(key, `'${field}' must be a string`);
  return v;
}

export function boolField(key: string, section: Record<string, unknown>, field: string, fallback: boolean): boolean {
  const v = section[field];
  if (v === undefined || v === null || v === '') return fallback;
  if (typeof v === 'boolean') return v;
  if (v === 'true' || v === 'false') return v === 'true';
  throw new ConfigError(key, `'${field}' must be a boolean`);
}

export function objectField(key: string, section: Record<string, unknown>, field: string): Record<string, unknown> {
  const v = section[field];
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v)) throw new ConfigError(key, `'${field}' must be an object`);
  return v as Record<string, unknown>;
}

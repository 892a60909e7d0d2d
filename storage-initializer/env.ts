/**
 * Readers of the storage-initializer's environment, shared by the run's own settings
 * (config.ts) and each provider's (providers/*-settings.ts). Everything is read once at
 * start-up; a malformed value is a StorageError naming the variable.
 */
import { readFileSync } from 'node:fs';
import { errors } from './errors.js';

export type Env = Readonly<Record<string, string | undefined>>;

/** STORAGE_CONFIG (the `storage-config` secret key) merged with STORAGE_OVERRIDE_CONFIG. */
export type StorageConfigObject = Readonly<Record<string, unknown>>;

const TRUE = new Set(['1', 'true', 'yes', 'on']);
const FALSE = new Set(['0', 'false', 'no', 'off']);

export function bool(v: string | undefined, dflt: boolean): boolean {
  if (v === undefined || v === '') return dflt;
  const s = v.trim().toLowerCase();
  if (TRUE.has(s)) return true;
  if (FALSE.has(s)) return false;
  return dflt;
}

/** The first of `names` that is set, as a number of at least `min`; `dflt` when none is. */
export function num(env: Env, names: string[], dflt: number, min: number): number {
  for (const n of names) {
    const v = env[n];
    if (v === undefined || v === '') continue;
    const x = Number(v);
    if (!Number.isFinite(x) || x < min) throw errors.settingNotANumber(n, min, v);
    return x;
  }
  return dflt;
}

/** PEM text of a CA bundle file named by `setting`. */
export function readCa(file: string, setting: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    throw errors.caBundleNotFound(file, setting);
  }
}

/** A JSON object of header names to values (`<host>-headers`, HDFS's HEADERS). */
export function parseHeaders(raw: string, setting: string, shown = setting): Record<string, string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    /* reported below */
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw errors.headersNotAJsonObject(setting, shown);
  return Object.fromEntries(Object.entries(parsed).map(([k, v]) => [k, String(v)]));
}

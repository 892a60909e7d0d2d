/**
 * Kubernetes resource quantities (`256Mi`, `1G`, `1.5Gi`, `500e6`, `100m`, a bare number) as
 * numbers, one grammar for every program: a TrainedModel's `spec.model.memory` and the
 * predictor's memory limit in the controller, `modelSpec.memory` and `--model_memory_limit` in
 * the server's puller, the cache bound of the storage-initializer. Suffixes and their meaning
 * are apimachinery's (`resource.Quantity`).
 */

const QUANTITY = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+))(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?\d+)?$/;

const SUFFIX: ReadonlyMap<string, number> = new Map([
  ['', 1],
  ['n', 1e-9],
  ['u', 1e-6],
  ['m', 1e-3],
  ['k', 1e3],
  ['M', 1e6],
  ['G', 1e9],
  ['T', 1e12],
  ['P', 1e15],
  ['E', 1e18],
  ['Ki', 2 ** 10],
  ['Mi', 2 ** 20],
  ['Gi', 2 ** 30],
  ['Ti', 2 ** 40],
  ['Pi', 2 ** 50],
  ['Ei', 2 ** 60],
]);

/** The quantity's value; a number is taken as is (the CRDs allow int-or-string); undefined for anything else. */
export function parseQuantity(value: string | number | undefined): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (value === undefined) return undefined;
  const m = QUANTITY.exec(value.trim());
  if (!m) return undefined;
  const suffix = m[2] ?? '';
  const factor = /^[eE]/.test(suffix) ? 10 ** Number(suffix.slice(1)) : SUFFIX.get(suffix);
  if (factor === undefined) return undefined;
  const v = Number(m[1]) * factor;
  return Number.isFinite(v) ? v : undefined;
}

/**
 * Bytes of a memory or size quantity written as text: non-negative, a fraction of a byte
 * rounded up as Kubernetes rounds a memory quantity's `Value()`; undefined otherwise.
 */
export function quantityBytes(text: string): number | undefined {
  const v = parseQuantity(text);
  if (v === undefined || v < 0) return undefined;
  const bytes = Math.ceil(v);
  return Number.isSafeInteger(bytes) ? bytes : undefined;
}

/** `n` bytes the way a person reads them back: `268435456 bytes (256Mi)`. */
export function describeBytes(n: number): string {
  for (const [suffix, scale] of [
    ['Ei', 2 ** 60],
    ['Pi', 2 ** 50],
    ['Ti', 2 ** 40],
    ['Gi', 2 ** 30],
    ['Mi', 2 ** 20],
    ['Ki', 2 ** 10],
  ] as const) {
    if (n >= scale) return `${n} bytes (${Number((n / scale).toFixed(2))}${suffix})`;
  }
  return `${n} bytes`;
}

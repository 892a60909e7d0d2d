/**
 * Kubernetes resource quantities (`256Mi`, `1G`, `1.5Gi`, `500e6`) as bytes: what a
 * TrainedModel's `spec.model.memory` and `--model_memory_limit` are written in. The suffixes
 * and their meaning are apimachinery's (`resource.Quantity`); a fraction of a byte rounds up,
 * as Kubernetes rounds a memory quantity's `Value()`.
 */

/** Multipliers by suffix: binary (Ki..Ei), decimal (k..E), and milli (m) for completeness. */
const SUFFIXES: ReadonlyMap<string, number> = new Map([
  ['', 1],
  ['Ki', 2 ** 10],
  ['Mi', 2 ** 20],
  ['Gi', 2 ** 30],
  ['Ti', 2 ** 40],
  ['Pi', 2 ** 50],
  ['Ei', 2 ** 60],
  ['m', 1e-3],
  ['k', 1e3],
  ['M', 1e6],
  ['G', 1e9],
  ['T', 1e12],
  ['P', 1e15],
  ['E', 1e18],
]);

const QUANTITY = /^\+?(\d+(?:\.\d*)?|\.\d+)(?:([eE][+-]?\d+)|([KMGTPE]i|[mkMGTPE]))?$/;

/** Bytes of a quantity, or undefined when `text` is not one (negative quantities are not memory). */
export function quantityBytes(text: string): number | undefined {
  const m = QUANTITY.exec(text.trim());
  if (m === null) return undefined;
  const [, digits = '', exponent, suffix = ''] = m;
  const scale = exponent !== undefined ? 10 ** Number(exponent.slice(1)) : SUFFIXES.get(suffix);
  if (scale === undefined) return undefined;
  const bytes = Math.ceil(Number(digits) * scale);
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

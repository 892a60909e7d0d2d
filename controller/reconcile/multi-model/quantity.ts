/**
 * Kubernetes quantities (`256Mi`, `1G`, `1.5e9`, a bare number of bytes) as numbers, for
 * KServe's memory accounting: the sum of a parent's TrainedModels against its predictor's
 * memory limit (`resource.Quantity.Cmp`). Undefined for anything that is not a quantity.
 */
const QUANTITY = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+))(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?\d+)?$/;

const SUFFIX: Readonly<Record<string, number>> = {
  '': 1,
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

export function parseQuantity(value: string | number | undefined): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (value === undefined) return undefined;
  const m = QUANTITY.exec(value.trim());
  if (!m) return undefined;
  const suffix = m[2] ?? '';
  const factor = /^[eE]/.test(suffix) ? 10 ** Number(suffix.slice(1)) : SUFFIX[suffix]!;
  return Number(m[1]) * factor;
}

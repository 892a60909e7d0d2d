/**
 * Sentence-transformers' Pooling and Normalize modules (1_Pooling/config.json, modules.json),
 * over one batch of token vectors [batch, sequence, hidden] with its attention mask.
 */
export type PoolingMode = 'mean' | 'cls' | 'max' | 'mean_sqrt_len' | 'lasttoken';

/** 1_Pooling/config.json's flags, one per mode; exactly one is set in the exports served here. */
const MODE_FLAGS: ReadonlyMap<string, PoolingMode> = new Map([
  ['pooling_mode_mean_tokens', 'mean'],
  ['pooling_mode_cls_token', 'cls'],
  ['pooling_mode_max_tokens', 'max'],
  ['pooling_mode_mean_sqrt_len_tokens', 'mean_sqrt_len'],
  ['pooling_mode_lasttoken', 'lasttoken'],
]);

/** The one pooling mode a 1_Pooling/config.json sets; throws naming the flags otherwise. */
export function poolingModeOf(config: Record<string, unknown>): PoolingMode {
  const set = [...MODE_FLAGS].filter(([flag]) => config[flag] === true).map(([, mode]) => mode);
  if (config['pooling_mode_weightedmean_tokens'] === true) throw new Error('pooling_mode_weightedmean_tokens is not supported');
  if (set.length !== 1) throw new Error(`1_Pooling/config.json must set exactly one of ${[...MODE_FLAGS.keys()].join(', ')}; sets ${set.length}`);
  return set[0] as PoolingMode;
}

/**
 * Pools each row of `hidden` ([rows, seq, dim], row-major) into `out` at `offset` rows in.
 * Rows are padded on the right: row r's attention mask is 1 for its first `lengths[r]` tokens.
 */
export function pool(mode: PoolingMode, hidden: Float32Array, lengths: Int32Array, seq: number, dim: number, out: Float32Array, offset: number): void {
  lengths.forEach((length, row) => {
    const base = row * seq * dim;
    const target = out.subarray((offset + row) * dim, (offset + row + 1) * dim);
    if (mode === 'cls') {
      target.set(hidden.subarray(base, base + dim));
      return;
    }
    if (mode === 'lasttoken') {
      const last = Math.max(0, length - 1);
      target.set(hidden.subarray(base + last * dim, base + (last + 1) * dim));
      return;
    }
    if (mode === 'max') {
      // Padding counts as -1e9, as sentence-transformers sets it before taking the max.
      target.fill(-1e9);
      for (let t = 0; t < length; t++) {
        for (let d = 0; d < dim; d++) target[d] = Math.max(target[d] as number, hidden[base + t * dim + d] as number);
      }
      return;
    }
    // Sums in float64, divides once: within float32 rounding of numpy's float32 sum.
    const sum = new Float64Array(dim);
    for (let t = 0; t < length; t++) {
      for (let d = 0; d < dim; d++) sum[d] = (sum[d] as number) + (hidden[base + t * dim + d] as number);
    }
    const divisor = mode === 'mean' ? Math.max(length, 1e-9) : Math.sqrt(Math.max(length, 1e-9));
    for (let d = 0; d < dim; d++) target[d] = (sum[d] as number) / divisor;
  });
}

/** Scales each row of `rows` ([n, dim]) to unit length (Normalize; rows of zeros stay zero). */
export function normalizeRows(rows: Float32Array, dim: number): void {
  for (let r = 0; r * dim < rows.length; r++) {
    const row = rows.subarray(r * dim, (r + 1) * dim);
    let sq = 0;
    for (const v of row) sq += v * v;
    const norm = Math.max(Math.sqrt(sq), 1e-12);
    for (let d = 0; d < dim; d++) row[d] = (row[d] as number) / norm;
  }
}

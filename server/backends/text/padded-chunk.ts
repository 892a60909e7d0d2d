/**
 * One ONNX run's worth of encoded text: its rows padded on the right to the chunk's longest
 * sequence, as the graph takes them. Built where the tokenizer runs (tokenizer-worker.ts), so
 * the main thread receives ready tensors and never walks the tokens.
 */
import type { Encoded } from './text-tokenizer.js';

export interface PaddedChunk {
  readonly rows: number;
  /** The longest sequence of the chunk: every row is padded to it. */
  readonly seq: number;
  /** Each row's own length, special tokens included: its attention mask is 1 for exactly the first `lengths[r]` positions. */
  readonly lengths: Int32Array;
  /** [rows, seq] each, row-major. */
  readonly ids: BigInt64Array;
  readonly attention: BigInt64Array;
  readonly typeIds: BigInt64Array;
}

/** Pads `encoded` (one chunk, at least one row) to its longest sequence with `padId`. */
export function padChunk(encoded: readonly Encoded[], padId: number): PaddedChunk {
  const rows = encoded.length;
  const seq = Math.max(...encoded.map((e) => e.ids.length));
  const ids = new BigInt64Array(rows * seq).fill(BigInt(padId));
  const attention = new BigInt64Array(rows * seq);
  const typeIds = new BigInt64Array(rows * seq);
  const lengths = new Int32Array(rows);
  encoded.forEach((e, r) => {
    lengths[r] = e.ids.length;
    for (let t = 0; t < e.ids.length; t++) {
      ids[r * seq + t] = BigInt(e.ids[t] as number);
      attention[r * seq + t] = 1n;
      typeIds[r * seq + t] = BigInt(e.typeIds[t] ?? 0);
    }
  });
  return { rows, seq, lengths, ids, attention, typeIds };
}

/** `encoded` in chunks of at most `chunkRows` rows, each padded on its own (in order). */
export function padChunks(encoded: readonly Encoded[], chunkRows: number, padId: number): PaddedChunk[] {
  const chunks: PaddedChunk[] = [];
  for (let start = 0; start < encoded.length; start += chunkRows) chunks.push(padChunk(encoded.slice(start, start + chunkRows), padId));
  return chunks;
}

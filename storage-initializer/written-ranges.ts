/**
 * Which bytes of one file are on disk: disjoint, merged intervals, and the length of the
 * contiguous prefix from `start`, the part a sequential digest can read. Parts finish out of
 * order, so a range written ahead of the prefix waits here until the gap before it fills.
 */
export class WrittenRanges {
  /** Sorted, disjoint, non-adjacent [start, end) intervals beyond the prefix. */
  private ahead: Array<[number, number]> = [];
  private end: number;

  constructor(start: number) {
    this.end = start;
  }

  /** End of the contiguous prefix: every byte before it is written. */
  get prefixEnd(): number {
    return this.end;
  }

  add(position: number, length: number): void {
    if (length <= 0) return;
    let s = position;
    let e = position + length;
    if (e <= this.end) return;
    if (s <= this.end) {
      this.end = e;
    } else {
      const kept: Array<[number, number]> = [];
      for (const iv of this.ahead) {
        if (iv[1] < s || iv[0] > e) kept.push(iv);
        else {
          s = Math.min(s, iv[0]);
          e = Math.max(e, iv[1]);
        }
      }
      kept.push([s, e]);
      kept.sort((a, b) => a[0] - b[0]);
      this.ahead = kept;
    }
    // Intervals the prefix has reached join it.
    while (this.ahead.length && this.ahead[0]![0] <= this.end) {
      this.end = Math.max(this.end, this.ahead.shift()![1]);
    }
  }
}

/** Periodic progress lines (bytes, rate, ETA) for container logs, and the final summary. */
export type Log = (line: string) => void;

export function human(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = bytes;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${u === 0 ? Math.round(v) : v.toFixed(1)} ${units[u]}`;
}

export class Progress {
  bytes = 0;
  filesDone = 0;
  private readonly started = performance.now();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly log: Log,
    private readonly label: string,
    private readonly totalBytes: number | undefined,
    private readonly totalFiles: number,
    intervalMs: number,
  ) {
    this.timer = setInterval(() => this.report(), intervalMs);
    this.timer.unref();
  }

  seconds(): number {
    return (performance.now() - this.started) / 1000;
  }

  private report(): void {
    const s = this.seconds();
    const rate = this.bytes / Math.max(s, 1e-3);
    const total = this.totalBytes;
    const pct = total ? ` (${((100 * this.bytes) / total).toFixed(0)}%)` : '';
    const eta = total && rate > 0 ? `, ETA ${Math.max(0, (total - this.bytes) / rate).toFixed(0)}s` : '';
    this.log(`progress ${this.label}: ${human(this.bytes)}${total ? ` of ${human(total)}` : ''}${pct}, ${this.filesDone}/${this.totalFiles} files, ${human(rate)}/s${eta}`);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}

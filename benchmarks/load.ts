/**
 * Load generators: fixed-duration closed loops, results in requests/s and ms.
 *
 * HTTP goes through autocannon (pre-encoded requests on raw keep-alive sockets, the
 * cheapest client here). Its own latency histogram keeps whole milliseconds only, so
 * latencies are taken from its per-response events instead, at full `hrtime` precision.
 * Anything else (gRPC calls, in-process runtime calls) runs through `closedLoop`.
 */
import autocannon from 'autocannon';

export interface LoadResult {
  readonly name: string;
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  /** Failed requests: connection errors, timeouts and non-2xx answers. */
  readonly errors: number;
}

export interface LoadSpec {
  readonly name: string;
  readonly url: string;
  readonly method?: 'GET' | 'POST';
  readonly body?: Buffer | string;
  readonly headers?: Record<string, string>;
  readonly connections: number;
  readonly seconds: number;
  /** Seconds a request may take before it counts as an error (autocannon's default: 10). */
  readonly timeoutSeconds?: number;
}

/** Throughput and latency quantiles from the latencies (ms) of the successful requests. */
export function summarise(name: string, latencies: number[], seconds: number, errors: number): LoadResult {
  latencies.sort((a, b) => a - b);
  const q = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? 0;
  return { name, rps: latencies.length / seconds, p50: q(0.5), p99: q(0.99), errors };
}

export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const latencies: number[] = [];
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: spec.url,
        method: spec.method ?? 'GET',
        body: spec.body,
        headers: spec.headers,
        connections: spec.connections,
        duration: spec.seconds,
        ...(spec.timeoutSeconds === undefined ? {} : { timeout: spec.timeoutSeconds }),
      },
      (err: unknown, res: autocannon.Result) => (err ? reject(err instanceof Error ? err : new Error('autocannon failed', { cause: err })) : resolve(res)),
    );
    instance.on('response', (_client, status, _bytes, ms) => {
      if (status >= 200 && status < 300) latencies.push(ms);
    });
  });
  return summarise(spec.name, latencies, result.duration, result.errors + result.timeouts + result.non2xx);
}

/** `concurrency` callers run `once` back to back for `seconds`; a rejection counts as an error. */
export async function closedLoop(name: string, concurrency: number, seconds: number, once: () => Promise<unknown>): Promise<LoadResult> {
  const latencies: number[] = [];
  let errors = 0;
  const start = performance.now();
  const end = start + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        const t = performance.now();
        try {
          await once();
          latencies.push(performance.now() - t);
        } catch {
          errors++;
        }
      }
    }),
  );
  return summarise(name, latencies, (performance.now() - start) / 1000, errors);
}

export interface OpenLoopSpec {
  readonly name: string;
  /** Requests started per second, on schedule whether or not earlier ones have finished. */
  readonly rate: number;
  readonly seconds: number;
  /** Stops after this many requests are due, even with time left. */
  readonly maxRequests: number;
  /**
   * Requests outstanding at most. A request due while this many are outstanding is not sent
   * and counts as dropped: a server that cannot keep up fails the run instead of queueing
   * without bound in this process.
   */
  readonly maxInFlight: number;
  readonly once: () => Promise<unknown>;
  /** Per finished request: its due time (ms after the start), latency from that due time (ms), success. */
  readonly onDone?: (dueMs: number, latencyMs: number, ok: boolean) => void;
}

export interface OpenLoopResult extends LoadResult {
  readonly sent: number;
  /** Due but not sent (maxInFlight outstanding); also counted in `errors`. */
  readonly dropped: number;
}

/** Ticks of the open-loop scheduler (ms); requests due meanwhile go out together. */
const OPEN_LOOP_TICK_MS = 2;

/**
 * A fixed-rate (open) loop: request i is due at start + i / rate and latency counts from
 * that due time, so a stall in the server or in this process shows in the latencies rather
 * than slowing the load down (no coordinated omission). Bounded by `seconds` and `maxRequests`.
 */
export async function openLoop(spec: OpenLoopSpec): Promise<OpenLoopResult> {
  const latencies: number[] = [];
  const interval = 1000 / spec.rate;
  const start = performance.now();
  const end = start + spec.seconds * 1000;
  const pending = new Set<Promise<void>>();
  let issued = 0;
  let sent = 0;
  let dropped = 0;
  let failed = 0;
  const send = (dueAt: number) => {
    sent++;
    const p: Promise<void> = spec
      .once()
      .then(
        () => true,
        () => false,
      )
      .then((ok) => {
        pending.delete(p);
        const latency = performance.now() - dueAt;
        if (ok) latencies.push(latency);
        else failed++;
        spec.onDone?.(dueAt - start, latency, ok);
      });
    pending.add(p);
  };
  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = Math.min(performance.now(), end);
      const due = Math.min(spec.maxRequests, Math.floor((now - start) / interval) + 1);
      for (; issued < due; issued++) {
        if (pending.size >= spec.maxInFlight) dropped++;
        else send(start + issued * interval);
      }
      if (now >= end || issued >= spec.maxRequests) resolve();
      else setTimeout(tick, OPEN_LOOP_TICK_MS);
    };
    tick();
  });
  const sendingSeconds = (Math.min(performance.now(), end) - start) / 1000;
  await Promise.all(pending);
  return { ...summarise(spec.name, latencies, sendingSeconds, failed + dropped), sent, dropped };
}

/**
 * Runs `load` for `seconds`; when that window ends before any request was answered and none
 * failed, it measured nothing (requests still in flight at the end are not counted, and one
 * conv V2 JSON request on a busy machine can outlast a smoke run's 1 s window), so it runs
 * once more for `longer` seconds and that result stands. Errors are never retried here.
 */
export async function untilAnswered(
  load: (seconds: number) => Promise<LoadResult>,
  seconds: number,
  longer = 4 * seconds,
  onRetry: (line: string) => void = () => {},
): Promise<LoadResult> {
  const r = await load(seconds);
  if (r.rps > 0 || r.errors > 0) return r;
  onRetry(`${r.name}: no answer within ${seconds} s; measuring for ${longer} s`);
  return load(longer);
}

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
      },
      (err: unknown, res: autocannon.Result) => (err ? reject(err) : resolve(res)),
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

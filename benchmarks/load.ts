/** Thin wrapper over autocannon: fixed-duration closed-loop load, results in requests/s and ms. */
import autocannon from 'autocannon';

export interface LoadResult {
  readonly name: string;
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  readonly errors: number;
  readonly non2xx: number;
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

export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const result = await autocannon({
    url: spec.url,
    method: spec.method ?? 'GET',
    body: spec.body,
    headers: spec.headers,
    connections: spec.connections,
    duration: spec.seconds,
  });
  return {
    name: spec.name,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  };
}

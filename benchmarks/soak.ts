/**
 * The soak benchmark (issue 19): one kserve-ts server with mlp_64x8, loaded for N minutes
 * at 80% of the capacity measured just before, over V2 REST JSON and gRPC (raw contents, as
 * tritonclient sends) at once. Reports errors (which must be 0), the throughput achieved,
 * p50/p99 per minute and protocol, and the server's RSS sampled every few seconds with its
 * least-squares slope, plus RSS after a quiet spell relative to warm idle.
 *
 * Phases: warm-up (c=8 per protocol) → capacity (closed loop at c=32, one protocol at a
 * time, with the same client the soak uses) → warm idle RSS → soak: each protocol in its
 * own open loop at 40% of its own capacity, both at once, so the server spends about 80%
 * of its time on them → quiet spell → RSS again. Every loop is bounded by its duration and
 * by a request cap. Run it through run-soak.ts.
 */
import { Agent, request } from 'node:http';
import { loadavg } from 'node:os';
import { encodeInfer, inferConnections } from './grpc/pre-encoded-client.js';
import { type LoadResult, closedLoop, openLoop, summarise } from './load.js';
import { machineLine } from './machine.js';
import { type HttpPayload, grpcRaw, sampleData, v2Json } from './payloads.js';
import { type ServerProcess, onnxRepository, pinLoadGenerator, startKserveTs } from './servers.js';
import { MLP } from './suite-report.js';

export interface SoakOptions {
  readonly minutes: number;
  /** Closed-loop capacity measurement per protocol (s). */
  readonly capacitySeconds: number;
  /** Quiet spell after the load before RSS is read again (s). */
  readonly idleSeconds: number;
  /** RSS sampling period during the soak (s). */
  readonly sampleSeconds: number;
  /** Share of the measured capacity, over both protocols together. */
  readonly loadShare: number;
  /** Run the server from source through tsx (no build). */
  readonly tsx?: boolean;
  /** Pin this process to CPU 0 and the server to CPU 1 where taskset exists (default true). */
  readonly pin?: boolean;
}

export const SOAK_DEFAULTS: SoakOptions = { minutes: 10, capacitySeconds: 10, idleSeconds: 60, sampleSeconds: 5, loadShare: 0.8 };

const CAPACITY_CONCURRENCY = 32;
const WARM_SECONDS = 3;
/** Pause between the capacity runs and the warm idle reading (s). */
const SETTLE_SECONDS = 5;
/** Outstanding requests per protocol at most during the soak (the rest count as dropped). */
const SOAK_MAX_IN_FLIGHT = 256;

export const SOAK_PROTOCOLS = ['V2 JSON', 'gRPC raw'] as const;
export type SoakProtocol = (typeof SOAK_PROTOCOLS)[number];

export interface MinuteStats {
  readonly minute: number;
  readonly perProtocol: Record<SoakProtocol, { readonly rps: number; readonly p50: number; readonly p99: number; readonly errors: number }>;
  /** Last RSS sample taken in this minute (MiB). */
  readonly rssMiB: number;
}

export interface SoakReport {
  readonly startedAt: string;
  readonly machine: string;
  readonly loadAverage: { readonly start: number; readonly end: number };
  readonly options: SoakOptions;
  readonly pinned: boolean;
  readonly capacity: Record<SoakProtocol, LoadResult>;
  /** Requests per second asked of each protocol. */
  readonly targetRps: Record<SoakProtocol, number>;
  readonly achieved: Record<SoakProtocol, LoadResult & { readonly sent: number; readonly dropped: number }>;
  /** Every failure: errors answered, connections lost, requests dropped. Must be 0. */
  readonly errors: number;
  readonly minutes: readonly MinuteStats[];
  /** [seconds since the soak started, RSS MiB] */
  readonly rss: readonly (readonly [number, number])[];
  readonly rssSlopeMiBPerMin: number;
  readonly warmIdleMiB: number;
  readonly peakMiB: number;
  readonly afterIdleMiB: number;
}

/** Least-squares slope of y over x (units of y per unit of x); 0 with fewer than two points. */
export function slope(points: readonly (readonly [number, number])[]): number {
  const n = points.length;
  if (n < 2) return 0;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  let num = 0;
  let den = 0;
  for (const [x, y] of points) {
    num += (x - mx) * (y - my);
    den += (x - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

const sleep = (s: number) => new Promise((r) => setTimeout(r, s * 1000));

/** One V2 REST call on a keep-alive agent; rejects unless the answer is 200. */
function httpCaller(base: string, p: HttpPayload, agent: Agent): () => Promise<void> {
  const url = new URL(`${base}${p.path}`);
  const body = typeof p.body === 'string' ? Buffer.from(p.body) : p.body;
  const headers = { ...p.headers, 'content-length': String(body.byteLength) };
  return () =>
    new Promise<void>((resolve, reject) => {
      const req = request({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers, agent }, (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`HTTP ${res.statusCode}`))));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
}

interface Callers {
  readonly calls: Record<SoakProtocol, () => Promise<unknown>>;
  close(): void;
}

function callers(server: ServerProcess): Callers {
  const data = sampleData(MLP.tensor.shape);
  const agent = new Agent({ keepAlive: true, maxSockets: CAPACITY_CONCURRENCY });
  // Two calls per connection at c=32 and below the soak's open loop: 16 connections.
  const grpc = inferConnections(`127.0.0.1:${server.grpcPort}`, 16);
  const framed = encodeInfer(grpcRaw(MLP.tensor, data));
  let closed = false;
  return {
    calls: { 'V2 JSON': httpCaller(server.base, v2Json(MLP.tensor, data), agent), 'gRPC raw': () => grpc.call(framed) },
    close: () => {
      if (closed) return;
      closed = true;
      grpc.close();
      agent.destroy();
    },
  };
}

/** Runs the soak against a fresh server and returns the report; `progress` gets one line per phase. */
export async function runSoak(options: SoakOptions, progress: (line: string) => void = () => {}): Promise<SoakReport> {
  const startedAt = new Date().toISOString();
  const load0 = loadavg()[0] as number;
  const pinned = options.pin !== false && pinLoadGenerator();
  const repo = onnxRepository({ [MLP.tensor.model]: MLP.file });
  const server = await startKserveTs({ repo: repo.dir, models: [MLP.tensor.model], pinned, ...(options.tsx === true ? { tsx: true } : {}) });
  const c = callers(server);
  try {
    for (const p of SOAK_PROTOCOLS) await closedLoop('warm-up', 8, WARM_SECONDS, c.calls[p]);
    const capacity = {} as Record<SoakProtocol, LoadResult>;
    for (const p of SOAK_PROTOCOLS) {
      capacity[p] = await closedLoop(p, CAPACITY_CONCURRENCY, options.capacitySeconds, c.calls[p]);
      progress(`capacity ${p}: ${capacity[p].rps.toFixed(0)} req/s at c=${CAPACITY_CONCURRENCY} (${capacity[p].errors} errors)`);
    }
    await sleep(SETTLE_SECONDS);
    const warmIdleMiB = server.rssMiB();
    progress(`warm idle RSS ${warmIdleMiB.toFixed(1)} MiB`);

    const seconds = options.minutes * 60;
    const share = options.loadShare / SOAK_PROTOCOLS.length;
    const targetRps = Object.fromEntries(SOAK_PROTOCOLS.map((p) => [p, capacity[p].rps * share])) as Record<SoakProtocol, number>;
    const buckets = Array.from(
      { length: Math.max(1, Math.ceil(options.minutes)) },
      () => Object.fromEntries(SOAK_PROTOCOLS.map((p) => [p, { latencies: [] as number[], errors: 0 }])) as Record<SoakProtocol, { latencies: number[]; errors: number }>,
    );
    const rss: [number, number][] = [[0, server.rssMiB()]];
    const t0 = performance.now();
    const sampler = setInterval(() => rss.push([(performance.now() - t0) / 1000, server.rssMiB()]), options.sampleSeconds * 1000);
    progress(`soak: ${options.minutes} min at ${SOAK_PROTOCOLS.map((p) => `${p} ${targetRps[p].toFixed(0)} req/s`).join(' + ')}`);
    let achievedList;
    try {
      achievedList = await Promise.all(
        SOAK_PROTOCOLS.map((p) =>
          openLoop({
            name: p,
            rate: targetRps[p],
            seconds,
            maxRequests: Math.ceil(targetRps[p] * seconds) + 1,
            maxInFlight: SOAK_MAX_IN_FLIGHT,
            once: c.calls[p],
            onDone: (dueMs, latency, ok) => {
              const b = buckets[Math.min(buckets.length - 1, Math.floor(dueMs / 60_000))]?.[p];
              if (b === undefined) return;
              if (ok) b.latencies.push(latency);
              else b.errors++;
            },
          }),
        ),
      );
    } finally {
      clearInterval(sampler);
    }
    rss.push([(performance.now() - t0) / 1000, server.rssMiB()]);
    const achieved = Object.fromEntries(SOAK_PROTOCOLS.map((p, i) => [p, achievedList[i]])) as SoakReport['achieved'];
    progress(`soak done: ${SOAK_PROTOCOLS.map((p) => `${p} ${achieved[p].rps.toFixed(0)} req/s, ${achieved[p].errors} errors`).join('; ')}`);

    const minutes = buckets.map((b, i): MinuteStats => {
      const span = Math.min(60, seconds - i * 60);
      const inMinute = rss.filter(([t]) => t <= (i + 1) * 60 + options.sampleSeconds / 2);
      const perProtocol = Object.fromEntries(
        SOAK_PROTOCOLS.map((p) => {
          const { rps, p50, p99, errors } = summarise(p, b[p].latencies, span, b[p].errors);
          return [p, { rps, p50, p99, errors }];
        }),
      ) as MinuteStats['perProtocol'];
      return { minute: i + 1, perProtocol, rssMiB: inMinute[inMinute.length - 1]?.[1] ?? 0 };
    });

    c.close();
    progress(`quiet for ${options.idleSeconds} s`);
    await sleep(options.idleSeconds);
    const afterIdleMiB = server.rssMiB();
    const rssPerMinute = rss.map(([t, m]) => [t / 60, m] as const);
    return {
      startedAt,
      machine: machineLine(),
      loadAverage: { start: load0, end: loadavg()[0] as number },
      options,
      pinned,
      capacity,
      targetRps,
      achieved,
      errors: SOAK_PROTOCOLS.reduce((n, p) => n + achieved[p].errors, 0),
      minutes,
      rss,
      rssSlopeMiBPerMin: slope(rssPerMinute),
      warmIdleMiB,
      peakMiB: Math.max(...rss.map(([, m]) => m)),
      afterIdleMiB,
    };
  } finally {
    c.close();
    await server.stop();
    repo.remove();
  }
}

const f1 = (n: number) => n.toFixed(1);
const ms = (n: number) => (n < 10 ? n.toFixed(2) : n.toFixed(1));

/** The report as the Markdown that RESULTS.md holds. */
export function soakMarkdown(r: SoakReport): string {
  const o = r.options;
  const head = `| minute | ${SOAK_PROTOCOLS.map((p) => `${p} req/s | ${p} p50 ms | ${p} p99 ms | ${p} errors`).join(' | ')} | RSS MiB |`;
  const sep = `|---:|${SOAK_PROTOCOLS.map(() => '---:|---:|---:|---:').join('|')}|---:|`;
  const rows = r.minutes.map(
    (m) =>
      `| ${m.minute} | ${SOAK_PROTOCOLS.map((p) => {
        const s = m.perProtocol[p];
        return `${s.rps.toFixed(0)} | ${ms(s.p50)} | ${ms(s.p99)} | ${s.errors}`;
      }).join(' | ')} | ${f1(m.rssMiB)} |`,
  );
  const proto = (p: SoakProtocol) =>
    `${p}: capacity ${r.capacity[p].rps.toFixed(0)} req/s (closed loop, c=${CAPACITY_CONCURRENCY}, ${o.capacitySeconds} s), asked ${r.targetRps[p].toFixed(0)} req/s, achieved ${r.achieved[p].rps.toFixed(0)} req/s, p50 ${ms(r.achieved[p].p50)} ms, p99 ${ms(r.achieved[p].p99)} ms, ${r.achieved[p].errors} errors (${r.achieved[p].dropped} dropped)`;
  return [
    `Run ${r.startedAt} on ${r.machine}; load average ${r.loadAverage.start.toFixed(2)} at the start, ${r.loadAverage.end.toFixed(2)} at the end (1 min).`,
    `mlp_64x8 batch 1, one kserve-ts server (one intra-op thread; ${r.pinned ? 'pinned to CPU 1, the load generator to CPU 0' : 'nothing pinned'}); ${o.minutes} min open loop at ${Math.round(o.loadShare * 100)}% of capacity: both protocols at once, each at ${Math.round((o.loadShare / SOAK_PROTOCOLS.length) * 100)}% of its own capacity; latency counted from each request's due time.`,
    '',
    ...SOAK_PROTOCOLS.map((p) => `- ${proto(p)}.`),
    `- Errors in all: **${r.errors}**.`,
    `- RSS: warm idle ${f1(r.warmIdleMiB)} MiB, peak ${f1(r.peakMiB)} MiB (${(r.peakMiB / r.warmIdleMiB).toFixed(2)}× warm idle), slope ${r.rssSlopeMiBPerMin.toFixed(2)} MiB/min (least squares over ${r.rss.length} samples, every ${o.sampleSeconds} s), ${f1(r.afterIdleMiB)} MiB after ${o.idleSeconds} s idle (${(r.afterIdleMiB / r.warmIdleMiB).toFixed(2)}× warm idle).`,
    '',
    head,
    sep,
    ...rows,
  ].join('\n');
}

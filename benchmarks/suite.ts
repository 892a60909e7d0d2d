/**
 * The benchmark suite (issues 8 and 19), one command, one table: kserve-ts against the anchor
 * (KServe's Python ModelServer, the release test/compat/venv.sh names, with onnxruntime on
 * the same ONNX files, from the compat suite's cached virtualenv) on the same machine and the
 * same load, plus the ceilings.
 *
 *   (1) mlp_64x8 batch 1 and (2) conv_small 1×3×224×224 over V2 JSON, V2 binary, gRPC typed
 *       and gRPC raw at every concurrency of the sweep, both servers, with the in-process
 *       onnxruntime-node ceiling per model, the gRPC ceilings (bare node:http2 and bare grpc-js
 *       answering the same gRPC raw messages with no model), the fastify hello-world / echo ceilings and a
 *       bare fastify route running the same mlp session on the same V2 JSON;
 *   (3) dynamic batching off vs on under 64 clients (kserve-ts only: the anchor's batcher is V1-only);
 *   (4) cold start, spawn to model ready, and (5) RSS idle with the small model loaded;
 *   --workers 1 vs 2; and (6) the transformer hop (transformer-hop.ts): mlp behind a
 *   pass-through transformer vs the predictor alone, V2 JSON and gRPC, ours and the anchor's.
 *
 * Servers run one model set at a time on CPU 1 and this process (the load generator:
 * autocannon for REST, pre-encoded calls over node:http2 for gRPC) on CPU 0, where taskset exists; the
 * --workers rows run unpinned. Rows alternate kserve-ts and anchor so that drift on a shared
 * machine hits both alike.
 *
 *   npm run build && npm run bench -- [--seconds 5] [--write]
 *   npm run bench -- --smoke     1 s per point, concurrency 1 and 8, one start (CI; < 2 min)
 *   --no-anchor                  without the Python server
 *   --baseline DIR               instead: this checkout against another built checkout (compare.ts)
 *
 * The run fails (exit 1) unless the table is complete: every planned row present, none with
 * errors, every side with a measurement. An anchor row that fails (no answers, errors, the
 * process died) is retried once on a restarted anchor (anchor-retry.ts); failing again, it is
 * recorded as the anchor's failure, marked and footnoted, and does not make the table
 * incomplete. A point whose window ends before any answer (and without errors) is measured
 * again for 4× as long: in-flight requests are not counted, and a conv V2 JSON request on a
 * busy machine can outlast the smoke's 1 s. Nothing judges the numbers. `--write` replaces the
 * suite section of benchmarks/RESULTS.md.
 */
import { loadavg } from 'node:os';
import { type AnchorOutcome, RestartingServer } from './anchor-retry.js';
import { baselineArg, compareWithBaseline } from './compare.js';
import { numberArg, writeResultsSection } from './harness.js';
import { inProcessCeiling } from './in-process.js';
import { type LoadResult, runLoad, untilAnswered } from './load.js';
import { machineLine } from './machine.js';
import { transformerHop } from './transformer-hop.js';
import { PROTOCOLS, type Probe, probes, sampleData, v2Binary, v2Json } from './payloads.js';
import { anchorPython, onnxRepository, pinLoadGenerator, type ServerProcess, startAnchor, startBareGrpc, startHello, startKserveTs, unpinLoadGenerator } from './servers.js';
import {
  BATCH_CLIENTS,
  BATCH_CONFIG,
  BARE_GRPC,
  BATCHED,
  COMPARED,
  FRAMEWORK,
  MLP,
  type Measure,
  PATHS,
  type Plan,
  type Row,
  START_WORKLOAD,
  WORKERS_CONCURRENCY,
  hopLines,
  renderTable,
  tableProblems,
  targetLines,
} from './suite-report.js';

const SMOKE = process.argv.includes('--smoke');
const SECONDS = numberArg('seconds', SMOKE ? 1 : 5);
const WARM_SECONDS = SMOKE ? 0.5 : 2;
const STARTS = SMOKE ? 1 : 3;
/** Start-up garbage settles before memory is read. */
const SETTLE_MS = SMOKE ? 300 : 1000;
const PLAN: Plan = { sweep: SMOKE ? [1, 8] : [1, 8, 32, 128], anchor: !process.argv.includes('--no-anchor') };

const sleep = (ms: number) => new Promise((res) => setTimeout(res, ms));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const progress = (s: string) => process.stderr.write(`[bench] ${s}\n`);
/** A load of SECONDS, or longer when that window saw no answer at all (load.ts, `untilAnswered`). */
const timed = (load: (seconds: number) => Promise<LoadResult>) => untilAnswered(load, SECONDS, 4 * SECONDS, progress);
const measured = (r: LoadResult, rss?: number): Measure => ({ rps: r.rps, p50: r.p50, p99: r.p99, errors: r.errors, ...(rss === undefined ? {} : { rss }) });

/** Starts the servers one after the other, runs `body` with them, and stops them whatever happens. */
async function withServers<T>(starters: ReadonlyArray<() => Promise<ServerProcess>>, body: (servers: ServerProcess[]) => Promise<T>): Promise<T> {
  const servers: ServerProcess[] = [];
  try {
    for (const start of starters) servers.push(await start());
    return await body(servers);
  } finally {
    for (const s of servers) await s.stop();
  }
}

/** (4) and (5): each server started `STARTS` times with mlp only; median and slowest start, median idle RSS. */
async function startUp(python: string | undefined, pinned: boolean): Promise<Row> {
  const repo = onnxRepository({ [MLP.tensor.model]: MLP.file });
  const starts = async (start: () => Promise<ServerProcess>): Promise<Measure> => {
    const times: number[] = [];
    const rss: number[] = [];
    for (let i = 0; i < STARTS; i++) {
      await withServers([start], async ([s]) => {
        await sleep(SETTLE_MS);
        times.push((s as ServerProcess).coldStartMs);
        rss.push((s as ServerProcess).rssMiB());
      });
    }
    return { p50: median(times), p99: Math.max(...times), rss: median(rss) };
  };
  try {
    progress('start-up');
    const ours = await starts(() => startKserveTs({ repo: repo.dir, models: [MLP.tensor.model], pinned }));
    if (python === undefined) return { workload: START_WORKLOAD, path: PATHS.start, c: '–', ours };
    // The anchor's starts are retried once as a whole when one of them fails.
    let anchor: AnchorOutcome = { failure: '' };
    for (const attempt of [1, 2]) {
      anchor = await starts(() => startAnchor({ python, repo: repo.dir, models: [MLP.tensor.model], pinned })).then(
        (measure) => ({ measure }),
        (e: unknown) => ({ failure: e instanceof Error ? e.message : String(e) }),
      );
      if ('measure' in anchor) break;
      progress(`start-up: the anchor failed (attempt ${attempt}): ${anchor.failure}`);
    }
    return { workload: START_WORKLOAD, path: PATHS.start, c: '–', ours, ...anchorSide(anchor) };
  } finally {
    repo.remove();
  }
}

/** A row's anchor fields from an outcome. */
const anchorSide = (o: AnchorOutcome): Pick<Row, 'anchor' | 'anchorFailure'> => ('measure' in o ? { anchor: o.measure } : { anchorFailure: o.failure });

/** Checks every probe's answer once, then warms each up at concurrency 8. */
async function ready(all: Probe[]): Promise<void> {
  for (const p of all) await p.check();
  for (const p of all) await p.load(8, WARM_SECONDS);
}

/**
 * (1) and (2): every protocol at every concurrency, kserve-ts and the anchor alternating.
 * The anchor runs under a `RestartingServer`: a row it fails is retried once on a fresh one.
 */
async function compared(python: string | undefined, pinned: boolean): Promise<Row[]> {
  const repo = onnxRepository(Object.fromEntries(COMPARED.map((m) => [m.tensor.model, m.file])));
  const models = COMPARED.map((m) => m.tensor.model);
  const rows: Row[] = [];
  const anchor = python === undefined ? undefined : new RestartingServer(() => startAnchor({ python, repo: repo.dir, models, pinned }), progress);
  try {
    await withServers([() => startKserveTs({ repo: repo.dir, models, pinned })], async ([ours]) => {
      for (const m of COMPARED) {
        const data = sampleData(m.tensor.shape);
        progress(`${m.label}: in-process ceiling`);
        rows.push({ workload: m.label, path: PATHS.inProcess, c: '1', ours: measured(await inProcessCeiling(m.file, m.tensor, data, SECONDS, WARM_SECONDS)) });
        const a = probes(ours as ServerProcess, m.tensor, data);
        // Probes hold the server's ports: made again for each anchor process.
        const anchorProbes = new Map<ServerProcess, Probe[]>();
        const probesOf = (s: ServerProcess): Probe[] => {
          const made = anchorProbes.get(s) ?? probes(s, m.tensor, data);
          anchorProbes.set(s, made);
          return made;
        };
        await ready(a);
        // An anchor that cannot start or answer here is left stopped: each of its rows then
        // starts one (anchor.row) and fails alone, without failing kserve-ts's rows.
        await anchor
          ?.current()
          .then((s) => ready(probesOf(s)))
          .catch(async (e: unknown) => {
            progress(`${m.label}: the anchor is not ready (${e instanceof Error ? e.message : String(e)}); its rows will restart it`);
            await anchor.stop();
          });
        for (const [i, protocol] of PROTOCOLS.entries()) {
          for (const c of PLAN.sweep) {
            progress(`${m.label}: ${protocol}, c=${c}`);
            const mine = measured(await timed((sec) => (a[i] as Probe).load(c, sec)), (ours as ServerProcess).rssMiB());
            const theirs =
              anchor === undefined
                ? undefined
                : await anchor.row(
                    `${m.label}: ${protocol}, c=${c}`,
                    async (s) => measured(await timed((sec) => (probesOf(s)[i] as Probe).load(c, sec)), s.rssMiB()),
                    (s) => ready([probesOf(s)[i] as Probe]),
                  );
            rows.push({ workload: m.label, path: protocol, c: String(c), ours: mine, ...(theirs === undefined ? {} : anchorSide(theirs)) });
          }
        }
      }
    });
  } finally {
    await anchor?.stop();
    repo.remove();
  }
  return rows;
}

/**
 * The gRPC ceilings (issue 34): each model's gRPC raw message, sent as the gRPC rows send it,
 * to bare node:http2 and bare grpc-js servers that answer without a model.
 */
async function grpcCeilings(pinned: boolean): Promise<Row[]> {
  const rows: Row[] = [];
  for (const bare of BARE_GRPC) {
    await withServers([() => startBareGrpc({ kind: bare.kind, pinned })], async ([server]) => {
      const s = server as ServerProcess;
      for (const m of COMPARED) {
        const raw = probes(s, m.tensor, sampleData(m.tensor.shape)).find((p) => p.protocol === 'gRPC raw') as Probe;
        await ready([raw]);
        for (const c of PLAN.sweep) {
          progress(`${m.label}: ${bare.path}, c=${c}`);
          rows.push({ workload: m.label, path: bare.path, c: String(c), ours: measured(await timed((sec) => raw.load(c, sec)), s.rssMiB()) });
        }
      }
    });
  }
  return rows;
}

/**
 * The framework's ceilings: hello-world GET, a POST with the mlp V2 JSON body answering a
 * fixed V2-sized body, and the bare fastify route that runs the mlp session on that body.
 */
async function framework(pinned: boolean): Promise<Row[]> {
  const payload = v2Json(MLP.tensor, sampleData(MLP.tensor.shape));
  const body = payload.body;
  return withServers([() => startHello({ pinned, model: MLP.file })], async ([hello]) => {
    const base = (hello as ServerProcess).base;
    const loads = [
      { path: PATHS.hello, spec: { url: `${base}/` } },
      { path: PATHS.echo, spec: { url: `${base}/echo`, method: 'POST' as const, body, headers: { 'content-type': 'application/json' } } },
      { path: PATHS.bareSession, workload: MLP.label, spec: { url: `${base}${payload.path}`, method: 'POST' as const, body, headers: payload.headers } },
    ];
    const bare = await fetch(`${base}${payload.path}`, { method: 'POST', body, headers: payload.headers });
    const answer = await bare.text();
    if (bare.status !== 200) throw new Error(`the bare fastify route answered ${bare.status}: ${answer.slice(0, 200)}`);
    const rows: Row[] = [];
    for (const l of loads) {
      await runLoad({ name: 'warm-up', ...l.spec, connections: 8, seconds: WARM_SECONDS });
      for (const c of PLAN.sweep) {
        progress(`${l.path}, c=${c}`);
        rows.push({
          workload: l.workload ?? FRAMEWORK,
          path: l.path,
          c: String(c),
          ours: measured(await timed((sec) => runLoad({ name: l.path, ...l.spec, connections: c, seconds: sec })), (hello as ServerProcess).rssMiB()),
        });
      }
    }
    return rows;
  });
}

/** (3): one row per request over V2 binary from 64 clients, without and with dynamic batching. */
async function batching(pinned: boolean): Promise<Row[]> {
  const rows: Row[] = [];
  for (const m of BATCHED) {
    const payload = v2Binary(m.tensor, sampleData(m.tensor.shape));
    for (const on of [false, true]) {
      const repo = onnxRepository({ [m.tensor.model]: m.file }, on ? { [m.tensor.model]: BATCH_CONFIG } : {});
      const path = on ? PATHS.batchingOn : PATHS.batchingOff;
      progress(`${m.label}: ${path}`);
      try {
        rows.push(
          await withServers([() => startKserveTs({ repo: repo.dir, models: [m.tensor.model], grpc: false, pinned })], async ([s]) => {
            const spec = { url: `${(s as ServerProcess).base}${payload.path}`, method: 'POST' as const, body: payload.body, headers: payload.headers };
            await runLoad({ name: 'warm-up', ...spec, connections: 8, seconds: WARM_SECONDS });
            const r = await timed((sec) => runLoad({ name: path, ...spec, connections: BATCH_CLIENTS, seconds: sec }));
            return { workload: m.label, path, c: String(BATCH_CLIENTS), ours: measured(r, (s as ServerProcess).rssMiB()) };
          }),
        );
      } finally {
        repo.remove();
      }
    }
  }
  return rows;
}

/** --workers 1 vs 2 on mlp V2 JSON; nothing pinned, so the generator shares the cores. */
async function workers(): Promise<Row[]> {
  unpinLoadGenerator();
  const repo = onnxRepository({ [MLP.tensor.model]: MLP.file });
  const payload = v2Json(MLP.tensor, sampleData(MLP.tensor.shape));
  const rows: Row[] = [];
  try {
    for (const n of [1, 2]) {
      progress(PATHS.workers(n));
      rows.push(
        await withServers([() => startKserveTs({ repo: repo.dir, models: [MLP.tensor.model], grpc: false, args: ['--workers', String(n)] })], async ([s]) => {
          const spec = { url: `${(s as ServerProcess).base}${payload.path}`, method: 'POST' as const, body: payload.body, headers: payload.headers };
          await runLoad({ name: 'warm-up', ...spec, connections: 8, seconds: WARM_SECONDS });
          const r = await timed((sec) => runLoad({ name: PATHS.workers(n), ...spec, connections: WORKERS_CONCURRENCY, seconds: sec }));
          return { workload: MLP.label, path: PATHS.workers(n), c: String(WORKERS_CONCURRENCY), ours: measured(r, (s as ServerProcess).rssMiB()) };
        }),
      );
    }
  } finally {
    repo.remove();
  }
  return rows;
}

async function main(): Promise<void> {
  const load0 = loadavg()[0] as number;
  const started = new Date();
  const pinned = pinLoadGenerator();
  const python = PLAN.anchor ? anchorPython() : undefined;
  const rows = [
    await startUp(python, pinned),
    ...(await compared(python, pinned)),
    ...(await grpcCeilings(pinned)),
    ...(await framework(pinned)),
    ...(await batching(pinned)),
    ...(await workers()),
  ];
  // workers() leaves the generator unpinned; the hop rows pin it again, as (1) and (2) are.
  const hopPinned = pinLoadGenerator();
  rows.push(...(await transformerHop({ python, pinned: hopPinned, sweep: PLAN.sweep, seconds: SECONDS, warmSeconds: WARM_SECONDS, progress })));
  const table = renderTable(rows);
  const out = [
    `Run ${started.toISOString()} on ${machineLine()}; load average ${load0.toFixed(2)} at the start, ${(loadavg()[0] as number).toFixed(2)} at the end (1 min).`,
    `${SMOKE ? 'Smoke run: ' : ''}${SECONDS} s per point (${4 * SECONDS} s where that window saw no answer) after ${WARM_SECONDS} s warm-up per path; ${STARTS} start(s) per server; ${
      pinned ? 'load generator pinned to CPU 0, servers to CPU 1 (except --workers rows)' : 'nothing pinned'
    }; kserve-ts with one intra-op thread, the anchor's sessions likewise. RSS: the server's process tree after the row's load. Start-up row: p50 / p99 columns are the median / slowest start (ms), RSS idle after start.`,
    '',
    table,
    '',
    ...targetLines(rows),
    ...hopLines(rows),
  ].join('\n');
  process.stdout.write(`${out}\n`);
  const problems = tableProblems(table, PLAN);
  if (problems.length > 0) {
    process.stderr.write(`[bench] the table is incomplete:\n${problems.map((p) => `  ${p}`).join('\n')}\n`);
    process.exitCode = 1;
    return;
  }
  if (process.argv.includes('--write')) writeResultsSection('suite', out);
}

const baseline = baselineArg();
if (baseline !== undefined) await compareWithBaseline(baseline);
else await main();

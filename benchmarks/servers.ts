/**
 * Servers a benchmark runs as child processes: kserve-ts, the anchor (KServe's Python
 * ModelServer, test/compat/anchor_server.py) and the fastify ceilings (hello-server.ts);
 * model repositories built from the test fixtures; process-tree memory.
 *
 * Every server gets free loopback ports chosen here and counts as started once a readiness
 * URL answers 200, so "cold start" means the same thing for every server: spawn to ready.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { NODE_FLAGS } from '../server/heap-tuning.js';
import { ROOT, stopChild } from './harness.js';

export interface ServerProcess {
  readonly name: string;
  readonly child: ChildProcess;
  readonly httpPort: number;
  /** 0 when the server runs without gRPC. */
  readonly grpcPort: number;
  /** `http://127.0.0.1:<httpPort>` */
  readonly base: string;
  /** Spawn to the first 200 from the readiness URL. */
  readonly coldStartMs: number;
  /** Resident memory of the process and its descendants now (MiB). */
  rssMiB(): number;
  stop(): Promise<void>;
}

/**
 * With taskset and at least two CPUs, pins this process (the load generator) to CPU 0 and
 * returns true; servers started with `pinned: true` then run on CPU 1, so every server
 * measured gets the same single core and the generator does not steal it.
 */
export function pinLoadGenerator(): boolean {
  return cpus().length >= 2 && spawnSync('taskset', ['-p', '-c', '0', String(process.pid)], { stdio: 'ignore' }).status === 0;
}

/** Lets this process run on every CPU again (after `pinLoadGenerator`). */
export function unpinLoadGenerator(): void {
  spawnSync('taskset', ['-p', '-c', `0-${cpus().length - 1}`, String(process.pid)], { stdio: 'ignore' });
}

/** Resident memory of a process and its descendants (MiB), from /proc; 0 where there is no /proc. */
export function treeRssMiB(pid: number): number {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return 0;
  }
  const kib = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  const children = spawnSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' })
    .stdout.split('\n')
    .filter(Boolean)
    .map(Number);
  return kib / 1024 + children.reduce((sum, c) => sum + treeRssMiB(c), 0);
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
    srv.once('error', reject);
  });
}

/** A model repository in a temporary folder: `<name>/model.onnx` copied from test/fixtures/models. */
export interface Repository {
  readonly dir: string;
  remove(): void;
}

/**
 * `models` maps each model name to a fixture file name (`mlp_64x8.onnx`); `configs` maps a
 * model name to the config.pbtxt to write beside it.
 */
export function onnxRepository(models: Record<string, string>, configs: Record<string, string> = {}): Repository {
  const dir = mkdtempSync(path.join(tmpdir(), 'kserve-ts-bench-'));
  for (const [name, file] of Object.entries(models)) {
    mkdirSync(path.join(dir, name));
    cpSync(path.join(ROOT, 'test/fixtures/models', file), path.join(dir, name, 'model.onnx'));
    const config = configs[name];
    if (config !== undefined) writeFileSync(path.join(dir, name, 'config.pbtxt'), config);
  }
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

const modelReadyPaths = (models: readonly string[]) => models.map((m) => `/v2/models/${m}/ready`);

/** A server process to start: its command, its ports, and the URLs that say it is ready. */
export interface SpawnSpec {
  readonly name: string;
  readonly cmd: readonly string[];
  readonly httpPort: number;
  readonly grpcPort: number;
  /** Paths polled on the HTTP port, in turn, until each answers 200. */
  readonly readyPaths: readonly string[];
  readonly pinned: boolean;
  readonly env?: NodeJS.ProcessEnv;
  /** Where the child's stdout and stderr go (default: dropped). */
  readonly stdio?: 'ignore' | 'inherit';
  /** Working directory (default: this checkout). */
  readonly cwd?: string;
}

/** Spawns `spec.cmd` and resolves once every ready path answers 200 (rejects if it exits first or after 180 s). */
export async function launch(spec: SpawnSpec): Promise<ServerProcess> {
  const [file, args] = spec.pinned ? ['taskset', ['-c', '1', ...spec.cmd]] : [spec.cmd[0] as string, spec.cmd.slice(1)];
  const t0 = performance.now();
  const child = spawn(file, args, {
    cwd: spec.cwd ?? ROOT,
    stdio: ['ignore', spec.stdio ?? 'ignore', spec.stdio ?? 'ignore'],
    env: { ...process.env, NO_PROXY: '127.0.0.1', ...spec.env },
  });
  const base = `http://127.0.0.1:${spec.httpPort}`;
  const stop = () => stopChild(child);
  const deadline = t0 + 180_000;
  for (const readyPath of spec.readyPaths) {
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${spec.name} exited (${child.exitCode ?? child.signalCode}) before it was ready`);
      const r = await fetch(`${base}${readyPath}`).catch(() => undefined);
      if (r?.status === 200) break;
      if (performance.now() > deadline) {
        await stop();
        throw new Error(`${spec.name} was not ready within 180 s: ${base}${readyPath}`);
      }
      await new Promise((res) => setTimeout(res, 10));
    }
  }
  const coldStartMs = performance.now() - t0;
  return { name: spec.name, child, httpPort: spec.httpPort, grpcPort: spec.grpcPort, base, coldStartMs, rssMiB: () => treeRssMiB(child.pid as number), stop };
}

export interface KserveTsOptions {
  readonly repo: string;
  /**
   * The models whose ready routes must answer 200. Not the server's /v2/health/ready: that
   * answers 200 before the repository has listed its models.
   */
  readonly models: readonly string[];
  readonly pinned?: boolean;
  readonly grpc?: boolean;
  /** Extra `serve` flags, e.g. `['--workers', '2']`. */
  readonly args?: readonly string[];
  /** Flags for node itself, e.g. `['--cpu-prof', '--cpu-prof-dir', dir]`, after NODE_FLAGS. */
  readonly nodeArgs?: readonly string[];
  /** Without NODE_FLAGS (server/heap-tuning.ts): how builds before them were launched. */
  readonly defaultNode?: boolean;
  /** Run bin/kserve-ts.ts through tsx instead of dist/ (no build needed). */
  readonly tsx?: boolean;
  readonly env?: NodeJS.ProcessEnv;
  readonly stdio?: 'ignore' | 'inherit';
  /**
   * Another checkout of kserve-ts, built (`npm run build`), to run instead of this one: the
   * baseline of `npm run bench -- --baseline DIR` (compare.ts). Named in the server's name.
   */
  readonly root?: string;
}

/** kserve-ts `serve` with one intra-op thread (unless `args` says otherwise), logging warnings only. */
export async function startKserveTs(o: KserveTsOptions): Promise<ServerProcess> {
  const httpPort = await freePort();
  const grpcPort = o.grpc === false ? 0 : await freePort();
  const entry = o.tsx ? ['--import', 'tsx', 'bin/kserve-ts.ts'] : ['dist/bin/kserve-ts.js'];
  const flags = ['--model_repository', o.repo, '--http_host', '127.0.0.1', '--http_port', String(httpPort), '--log_level', 'warn'];
  flags.push(...(o.grpc === false ? ['--enable_grpc', 'false'] : ['--grpc_port', String(grpcPort)]));
  if (!o.args?.includes('--intra_op_threads')) flags.push('--intra_op_threads', '1');
  return launch({
    name: o.root === undefined ? 'kserve-ts' : `kserve-ts at ${o.root}`,
    // Launched as the images launch it (NODE_FLAGS) unless the caller asks for Node's defaults.
    cmd: [process.execPath, ...(o.defaultNode === true ? [] : NODE_FLAGS), ...(o.nodeArgs ?? []), ...entry, 'serve', ...flags, ...(o.args ?? [])],
    ...(o.root === undefined ? {} : { cwd: o.root }),
    httpPort,
    grpcPort,
    readyPaths: modelReadyPaths(o.models),
    pinned: o.pinned ?? false,
    ...(o.env === undefined ? {} : { env: o.env }),
    ...(o.stdio === undefined ? {} : { stdio: o.stdio }),
  });
}

/**
 * The Python interpreter of the compatibility virtualenv of the anchor's KServe release
 * (test/compat/venv.sh: KServe and onnxruntime from PyPI, cached under ~/.cache/kserve-ts per
 * release; built on first use).
 */
export function anchorPython(): string {
  const venv = spawnSync('bash', [path.join(ROOT, 'test/compat/venv.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (venv.status !== 0) throw new Error('could not create the compatibility virtualenv (test/compat/venv.sh)');
  return path.join(venv.stdout.trim(), 'bin', 'python');
}

/** KServe's ModelServer with every model of `repo` (onnxruntime, one intra-op thread per session). */
export async function startAnchor(o: { python: string; repo: string; models: readonly string[]; pinned?: boolean }): Promise<ServerProcess> {
  const httpPort = await freePort();
  const grpcPort = await freePort();
  return launch({
    name: 'anchor',
    cmd: [o.python, 'test/compat/anchor_server.py', '--model_repository', o.repo, '--http_port', String(httpPort), '--grpc_port', String(grpcPort)],
    httpPort,
    grpcPort,
    readyPaths: modelReadyPaths(o.models),
    pinned: o.pinned ?? false,
  });
}

/**
 * The fastify ceilings of hello-server.ts: `GET /` (hello-world) and `POST /echo`; with
 * `model` (a fixture file name) also its bare V2 JSON route on that model,
 * `POST /v2/models/<any name>/infer`.
 */
export async function startHello(o: { pinned?: boolean; model?: string } = {}): Promise<ServerProcess> {
  const httpPort = await freePort();
  const model = o.model === undefined ? [] : [path.join(ROOT, 'test/fixtures/models', o.model)];
  return launch({
    name: o.model === undefined ? 'fastify hello-world' : `fastify hello-world and bare ${o.model} route`,
    cmd: [process.execPath, '--import', 'tsx', 'benchmarks/hello-server.ts', String(httpPort), ...model],
    httpPort,
    grpcPort: 0,
    readyPaths: ['/'],
    pinned: o.pinned ?? false,
  });
}

/** What a transformer forwards to: a predictor's address and the protocol of the hop. */
export interface HopTarget {
  readonly model: string;
  /** `127.0.0.1:PORT`: the predictor's REST port for v2, its gRPC port for grpc-v2. */
  readonly predictorHost: string;
  readonly protocol: 'v2' | 'grpc-v2';
  readonly pinned?: boolean;
}

/** kserve-ts in transformer mode serving benchmarks/transformer/pass-through.ts as `model`. */
export async function startKserveTsTransformer(o: HopTarget): Promise<ServerProcess> {
  const httpPort = await freePort();
  const grpcPort = await freePort();
  const flags = ['--model_name', o.model, '--model_module', 'benchmarks/transformer/pass-through.ts'];
  flags.push('--predictor_host', o.predictorHost, '--predictor_protocol', o.protocol);
  flags.push('--http_host', '127.0.0.1', '--http_port', String(httpPort), '--grpc_port', String(grpcPort), '--log_level', 'warn');
  return launch({
    name: `kserve-ts transformer (${o.protocol})`,
    // tsx loads the .ts module; 'kserve-ts' in it resolves to this package's dist/ (exports map).
    cmd: [process.execPath, ...NODE_FLAGS, '--import', 'tsx', 'dist/bin/kserve-ts.js', 'serve', ...flags],
    httpPort,
    grpcPort,
    readyPaths: modelReadyPaths([o.model]),
    pinned: o.pinned ?? false,
  });
}

/** KServe's Python transformer, kserve.Model as it comes (test/compat/transformer_anchor.py --pass_through). */
export async function startAnchorTransformer(o: HopTarget & { python: string }): Promise<ServerProcess> {
  const httpPort = await freePort();
  const grpcPort = await freePort();
  return launch({
    name: `anchor transformer (${o.protocol})`,
    cmd: [
      o.python,
      'test/compat/transformer_anchor.py',
      '--pass_through',
      '--model_name',
      o.model,
      '--predictor_host',
      o.predictorHost,
      '--predictor_protocol',
      o.protocol,
      '--http_port',
      String(httpPort),
      '--grpc_port',
      String(grpcPort),
    ],
    httpPort,
    grpcPort,
    readyPaths: modelReadyPaths([o.model]),
    pinned: o.pinned ?? false,
    env: { KSERVE_LOGLEVEL: 'WARNING' },
  });
}

/** The gRPC ceilings of grpc/bare-server.ts: ModelInfer answered by bare node:http2 or bare grpc-js, no model. */
export type BareGrpcKind = 'http2' | 'grpc-js';

export async function startBareGrpc(o: { kind: BareGrpcKind; pinned?: boolean }): Promise<ServerProcess> {
  const httpPort = await freePort();
  const grpcPort = await freePort();
  return launch({
    name: `bare ${o.kind}`,
    // With the server's Node flags: the ceiling is what Node's HTTP/2 allows tuned the same way.
    cmd: [process.execPath, ...NODE_FLAGS, '--import', 'tsx', 'benchmarks/grpc/bare-server.ts', o.kind, String(grpcPort), String(httpPort)],
    httpPort,
    grpcPort,
    readyPaths: ['/'],
    pinned: o.pinned ?? false,
  });
}

/**
 * The CUDA execution provider with its real libraries (onnxruntime-gpu and NVIDIA's CUDA
 * wheels, installed by scripts/install-cuda-ep.sh from its cache; on a fresh machine the
 * first run downloads them, it never skips) on a machine without a GPU.
 *
 * With a stub driver (test/helpers/cuda-stub-driver.ts) the provider loads the way
 * onnxruntime loads it, past symbol resolution, and CUDA initialisation fails inside
 * onnxruntime: that is as far as a CPU machine gets, and the path a GPU machine takes up to
 * the hardware. `cuda,cpu` serves on the CPU with one warning carrying onnxruntime's error,
 * `cuda` alone fails the load with it, and the process never crashes. Without the driver at
 * all, or without the CUDA libraries on LD_LIBRARY_PATH, the reason names the missing file.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STUB_FAILURE, type StubDriver, buildStubDriver } from './helpers/cuda-stub-driver.js';
import { freePort } from './helpers/free-port.js';
import { CLI } from './helpers/process.js';
import { ROOT, makeRepository } from './helpers/server.js';
import { tiedToParent } from './helpers/tied-process.js';

let libDir = '';
let stub: StubDriver;

beforeAll(() => {
  // Cached after the first run (~0.4 s); the first downloads ~1.5 GB of wheels from PyPI.
  libDir = execFileSync('bash', ['scripts/install-cuda-ep.sh'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();
  stub = buildStubDriver();
}, 600_000);

const cleanups: Array<() => void> = [];
afterAll(() => {
  cleanups.forEach((c) => c());
  stub?.cleanup();
});

interface Served {
  readonly base: string;
  readonly child: ChildProcess;
  output(): string;
  /** Exit code and signal once the process and its pipes closed (all output read): a crash shows as a signal. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function serve(flags: string[], env: NodeJS.ProcessEnv): Promise<Served> {
  return freePort().then((port) => {
    const [cmd, argv] = tiedToParent(process.execPath, [CLI, 'serve', '--http_host', '127.0.0.1', '--http_port', String(port), '--enable_grpc', 'false', ...flags]);
    const child = spawn(cmd, argv, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => child.on('close', (code, signal) => r({ code, signal })));
    return { base: `http://127.0.0.1:${port}`, child, output: () => out, exited };
  });
}

/** A repository of `layout` (makeRepository's) served with `flags`; the repository goes with the suite. */
function serveRepo(layout: Parameters<typeof makeRepository>[0], flags: string[], env: NodeJS.ProcessEnv): Promise<Served> {
  const repo = makeRepository(layout);
  cleanups.push(repo.cleanup);
  return serve(['--model_repository', repo.dir, ...flags], env);
}

/**
 * The model answers ready, and its `onnx session ready` log line has reached this process:
 * the server writes it (after any fallback warning) before the model can answer, but the
 * pipe may deliver it after the HTTP answer, so it is awaited on the pipe's data events.
 */
async function ready(s: Served, model: string): Promise<boolean> {
  const deadline = Date.now() + 60_000;
  let done = false;
  void s.exited.then(() => (done = true));
  while (Date.now() < deadline && !done) {
    const r = await fetch(`${s.base}/v2/models/${model}/ready`, { signal: AbortSignal.timeout(2000) }).then(
      (x) => x.status,
      () => 0,
    );
    if (r === 200) return logged(s, (l) => l['msg'] === 'onnx session ready' && l['model'] === model);
    await new Promise((r) => setTimeout(r, 200));
  }
  return false;
}

/** Resolves true once a log line matching `line` is in the output, false if the process exits first. */
function logged(s: Served, line: (l: Record<string, unknown>) => boolean): Promise<boolean> {
  const seen = () => logLines(s.output()).some(line);
  return new Promise((resolve) => {
    const check = () => {
      if (!seen()) return;
      s.child.stdout?.off('data', check);
      resolve(true);
    };
    s.child.stdout?.on('data', check);
    void s.exited.then(() => resolve(seen()));
    check();
  });
}

async function stop(s: Served): Promise<void> {
  s.child.kill('SIGTERM');
  await s.exited;
}

/** The server's JSON log lines among its output; a line still arriving (no newline yet) is left out. */
const logLines = (out: string) =>
  out
    .slice(0, out.lastIndexOf('\n') + 1)
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
const warnLines = (out: string) => logLines(out).filter((l) => l['level'] === 40);
const cudaWarnings = (out: string) => warnLines(out).filter((l) => String(l['msg']).includes('CUDA'));
const sessions = (out: string) =>
  logLines(out)
    .filter((l) => l['msg'] === 'onnx session ready')
    .map((l) => l['executionProviders']);

/** A conv model answers on the server: it really runs somewhere. */
async function inferConv(base: string, model: string): Promise<number> {
  const data = Array.from({ length: 3 * 224 * 224 }, (_, i) => (i % 255) / 255);
  const r = await fetch(`${base}/v2/models/${model}/infer`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ inputs: [{ name: 'input', shape: [1, 3, 224, 224], datatype: 'FP32', data }] }),
  });
  await r.arrayBuffer();
  return r.status;
}

/** The stub driver first, then the CUDA libraries: what a GPU node's LD_LIBRARY_PATH holds. */
const env = () => ({ ...process.env, LD_LIBRARY_PATH: `${stub.dir}:${libDir}` });
const param = (key: string, value: string) => `parameters { key: "${key}" value: { string_value: "${value}" } }\n`;

const INFO_CPU = (model: string) => new RegExp(`^kserve_model_info\\{model_name="${model}",model_version="",platform="onnxruntime_onnx",execution_provider="cpu"\\} 1$`, 'm');

describe('CUDA execution provider with a stub driver: loaded by onnxruntime, CUDA fails inside it', () => {
  it('--execution_providers cuda,cpu serves on the cpu with one warning naming the CUDA failure, and lives on', async () => {
    const s = await serveRepo({ conv: 'conv_small' }, ['--execution_providers', 'cuda,cpu'], env());
    try {
      expect(await ready(s, 'conv'), s.output()).toBe(true);
      const warns = cudaWarnings(s.output());
      expect(warns, s.output()).toHaveLength(1);
      const msg = String(warns[0]?.['msg']);
      expect(msg).toMatch(/^CUDA execution provider unavailable \(.+\); the model runs on cpu$/);
      expect(msg).toMatch(STUB_FAILURE);
      // Loaded as onnxruntime loads it: never the standalone load's symbol error.
      expect(msg).not.toContain('Provider_GetHost');
      expect(s.output()).not.toContain('Provider_GetHost');
      expect(sessions(s.output())).toEqual([['cpu']]);
      expect(await inferConv(s.base, 'conv')).toBe(200);
      const metrics = await fetch(`${s.base}/metrics`).then((r) => r.text());
      expect(metrics).toMatch(INFO_CPU('conv'));
      expect({ code: s.child.exitCode, signal: s.child.signalCode }).toEqual({ code: null, signal: null });
    } finally {
      await stop(s);
    }
  }, 120_000);

  it('--execution_providers cuda alone fails the load with the CUDA failure; the process exits, it does not crash', async () => {
    const s = await serveRepo({ conv: 'conv_small' }, ['--execution_providers', 'cuda'], env());
    try {
      expect(await s.exited).toEqual({ code: 1, signal: null }); // no model became ready
      const line = s
        .output()
        .split('\n')
        .find((l) => l.includes('execution providers [cuda]: the CUDA execution provider cannot be loaded: '));
      expect(line, s.output()).toBeDefined();
      expect(line).toMatch(STUB_FAILURE);
      expect(s.output()).not.toContain('Provider_GetHost');
    } finally {
      s.child.kill('SIGTERM');
    }
  }, 120_000);

  it('a config.pbtxt execution_providers override behaves the same as the flag', async () => {
    const s = await serveRepo(
      {
        both: { file: 'conv_small', config: param('execution_providers', 'cuda,cpu') },
        only: { file: 'conv_small', config: param('execution_providers', 'cuda') },
      },
      ['--execution_providers', 'cpu'],
      env(),
    );
    try {
      expect(await ready(s, 'both'), s.output()).toBe(true);
      const only = await fetch(`${s.base}/v2/models/only/ready`).then((r) => r.status);
      expect(only).not.toBe(200);
      const failed = s
        .output()
        .split('\n')
        .find((l) => l.includes('execution providers [cuda]: the CUDA execution provider cannot be loaded: '));
      expect(failed).toMatch(STUB_FAILURE);
      const warns = cudaWarnings(s.output()).filter((l) => l['model'] === 'both');
      expect(warns).toHaveLength(1);
      expect(String(warns[0]?.['msg'])).toMatch(STUB_FAILURE);
      const metrics = await fetch(`${s.base}/metrics`).then((r) => r.text());
      expect(metrics).toMatch(INFO_CPU('both'));
      expect(s.child.exitCode).toBeNull();
    } finally {
      await stop(s);
    }
  }, 120_000);
});

describe('CUDA provider options through a real server (stub driver)', () => {
  it('valid options load through onnxruntime to the same CUDA failure; a bad or uncarryable value fails that model alone, saying why', async () => {
    const s = await serveRepo(
      {
        dev: { file: 'conv_small', config: param('device_id', '1') + param('cudnn_conv_algo_search', 'EXHAUSTIVE') + param('use_tf32', 'true') },
        bad: { file: 'conv_small', config: param('cudnn_conv_algo_search', 'FASTEST') },
        tf32: { file: 'conv_small', config: param('use_tf32', '0') },
      },
      ['--execution_providers', 'cuda,cpu', '--device_id', '0'],
      env(),
    );
    try {
      expect(await ready(s, 'dev'), s.output()).toBe(true);
      const warns = cudaWarnings(s.output()).filter((l) => l['model'] === 'dev');
      expect(warns).toHaveLength(1);
      expect(String(warns[0]?.['msg'])).toMatch(STUB_FAILURE);
      for (const m of ['bad', 'tf32']) expect(await fetch(`${s.base}/v2/models/${m}/ready`).then((r) => r.status)).not.toBe(200);
      expect(s.output()).toContain(
        "config.pbtxt: parameter cudnn_conv_algo_search: 'FASTEST' is not a value of cudnn_conv_algo_search; it takes EXHAUSTIVE (0), HEURISTIC (1) or DEFAULT (2)",
      );
      expect(s.output()).toMatch(/use_tf32=0 cannot be applied: onnxruntime-node [\d.]+ hands the CUDA execution provider its device_id only/);
      expect(s.child.exitCode).toBeNull();
    } finally {
      await stop(s);
    }
  }, 120_000);

  it('instance_group KIND_GPU on a cpu server goes through the CUDA provider per instance and falls back; KIND_CPU stays off it', async () => {
    const s = await serveRepo(
      {
        gpu: { file: 'conv_small', config: 'instance_group [ { count: 2, kind: KIND_GPU, gpus: [ 1 ] } ]\n' },
        cpu: { file: 'conv_small', config: 'instance_group [ { kind: KIND_CPU } ]\n' + param('execution_providers', 'cuda') },
      },
      ['--execution_providers', 'cpu'],
      env(),
    );
    try {
      expect(await ready(s, 'gpu'), s.output()).toBe(true);
      expect(await ready(s, 'cpu'), s.output()).toBe(true);
      // One fallback per instance, each with onnxruntime's CUDA failure: the provider was loaded for it.
      const warns = cudaWarnings(s.output()).filter((l) => l['model'] === 'gpu');
      expect(warns.map((l) => l['instance']).sort()).toEqual([0, 1]);
      for (const w of warns) expect(String(w['msg'])).toMatch(STUB_FAILURE);
      expect(cudaWarnings(s.output()).filter((l) => l['model'] === 'cpu')).toEqual([]);
      expect(await inferConv(s.base, 'gpu')).toBe(200);
      const metrics = await fetch(`${s.base}/metrics`).then((r) => r.text());
      expect(metrics).toMatch(INFO_CPU('gpu'));
      expect(metrics).toMatch(INFO_CPU('cpu'));
    } finally {
      await stop(s);
    }
  }, 120_000);

  it('a bad CUDA option flag stops the server at start-up with the flag named', async () => {
    const s = await serveRepo({ conv: 'conv_small' }, ['--execution_providers', 'cuda,cpu', '--gpu_mem_limit', '1G'], env());
    const exit = await s.exited;
    expect(exit.signal).toBeNull();
    expect(exit.code).not.toBe(0);
    expect(s.output()).toContain("--gpu_mem_limit: '1G' is not a value of gpu_mem_limit; it takes a number of bytes");
  }, 60_000);
});

describe('CUDA execution provider installed, no driver or no CUDA libraries: the reason names the missing file', () => {
  it('no NVIDIA driver: cuda,cpu serves on the cpu and the warning names libcuda.so.1', async () => {
    const s = await serveRepo({ conv: 'conv_small' }, ['--execution_providers', 'cuda,cpu'], { ...process.env, LD_LIBRARY_PATH: libDir });
    try {
      expect(await ready(s, 'conv'), s.output()).toBe(true);
      const warns = cudaWarnings(s.output());
      expect(warns, s.output()).toHaveLength(1);
      expect(String(warns[0]?.['msg'])).toMatch(/^CUDA execution provider unavailable \(.*libcuda\.so\.1: cannot open shared object file.*\); the model runs on cpu$/);
      const metrics = await fetch(`${s.base}/metrics`).then((r) => r.text());
      expect(metrics).toMatch(INFO_CPU('conv'));
    } finally {
      await stop(s);
    }
  }, 120_000);

  it('no NVIDIA driver: cuda alone fails the load naming libcuda.so.1', async () => {
    const s = await serveRepo({ conv: 'conv_small' }, ['--execution_providers', 'cuda'], { ...process.env, LD_LIBRARY_PATH: libDir });
    try {
      expect(await s.exited).toEqual({ code: 1, signal: null });
      expect(s.output()).toMatch(/execution providers \[cuda\]: the CUDA execution provider cannot be loaded: .*libcuda\.so\.1: cannot open shared object file/);
    } finally {
      s.child.kill('SIGTERM');
    }
  }, 120_000);

  it('without LD_LIBRARY_PATH the reason names a CUDA library that is missing', async () => {
    const e = { ...process.env };
    delete e.LD_LIBRARY_PATH;
    const s = await serveRepo({ conv: 'conv_small' }, ['--execution_providers', 'cuda,cpu'], e);
    try {
      expect(await ready(s, 'conv'), s.output()).toBe(true);
      expect(s.output()).toMatch(/CUDA execution provider unavailable \(.*lib(cublasLt|cublas|curand|cudart|cufft|cudnn)\.so\.\d+: cannot open shared object file/);
    } finally {
      await stop(s);
    }
  }, 120_000);
});

/**
 * The CUDA execution provider with its real libraries (onnxruntime-gpu and NVIDIA's CUDA
 * wheels, installed by scripts/install-cuda-ep.sh from its cache) on a machine without an
 * NVIDIA driver: `cuda,cpu` loads on the CPU and logs onnxruntime's real reason once; `cuda`
 * alone fails the load; a model's config.pbtxt override behaves the same.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from './helpers/free-port.js';
import { CLI } from './helpers/process.js';
import { ROOT, makeRepository } from './helpers/server.js';
import { tiedToParent } from './helpers/tied-process.js';

const NO_DRIVER = 'libcuda.so.1: cannot open shared object file: No such file or directory';
let libDir = '';

beforeAll(() => {
  // Cached after the first run (~0.4 s); the first downloads ~1.5 GB of wheels from PyPI.
  libDir = execFileSync('bash', ['scripts/install-cuda-ep.sh'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();
}, 600_000);

interface Served {
  readonly base: string;
  readonly child: ChildProcess;
  output(): string;
  readonly exited: Promise<number | null>;
}

function serve(flags: string[], env: NodeJS.ProcessEnv): Promise<Served> {
  return freePort().then((port) => {
    const [cmd, argv] = tiedToParent(process.execPath, [CLI, 'serve', '--http_host', '127.0.0.1', '--http_port', String(port), '--enable_grpc', 'false', ...flags]);
    const child = spawn(cmd, argv, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
    return { base: `http://127.0.0.1:${port}`, child, output: () => out, exited };
  });
}

async function ready(s: Served, model: string): Promise<boolean> {
  const deadline = Date.now() + 30_000;
  let done = false;
  void s.exited.then(() => (done = true));
  while (Date.now() < deadline && !done) {
    const r = await fetch(`${s.base}/v2/models/${model}/ready`, { signal: AbortSignal.timeout(2000) }).then((x) => x.status, () => 0);
    if (r === 200) return true;
    await new Promise((r) => setTimeout(r, 200));
  }
  return false;
}

const warnLines = (out: string) =>
  out.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l['level'] === 40);

describe('CUDA execution provider installed, no NVIDIA driver', () => {
  const cleanups: Array<() => void> = [];
  afterAll(() => cleanups.forEach((c) => c()));
  const env = () => ({ ...process.env, LD_LIBRARY_PATH: libDir });

  it('--execution_providers cuda,cpu loads on the cpu and logs the loader\'s reason once', async () => {
    const repo = makeRepository({ conv: 'conv_small' });
    cleanups.push(repo.cleanup);
    const s = await serve(['--model_repository', repo.dir, '--execution_providers', 'cuda,cpu'], env());
    try {
      expect(await ready(s, 'conv')).toBe(true);
      const warns = warnLines(s.output()).filter((l) => String(l['msg']).includes('CUDA'));
      expect(warns).toHaveLength(1);
      expect(warns[0]?.['msg']).toBe(`CUDA execution provider unavailable (${NO_DRIVER}); the model runs on cpu`);
      const sessions = s.output().split('\n').filter((l) => l.includes('"onnx session ready"')).map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(sessions.map((l) => l['executionProviders'])).toEqual([['cpu']]);
      // The metric says where the model really runs: cpu, after the fallback.
      const metrics = await fetch(`${s.base}/metrics`).then((r) => r.text());
      expect(metrics).toMatch(/^kserve_model_info\{model_name="conv",model_version="",platform="onnxruntime_onnx",execution_provider="cpu"\} 1$/m);
    } finally {
      s.child.kill('SIGTERM');
      await s.exited;
    }
  }, 60_000);

  it('--execution_providers cuda alone fails the load with the reason', async () => {
    const repo = makeRepository({ conv: 'conv_small' });
    cleanups.push(repo.cleanup);
    const s = await serve(['--model_repository', repo.dir, '--execution_providers', 'cuda'], env());
    try {
      expect(await s.exited).toBe(1); // no model became ready
      expect(s.output()).toContain(`execution providers [cuda]: the CUDA execution provider cannot be loaded: ${NO_DRIVER}`);
    } finally {
      s.child.kill('SIGTERM');
    }
  }, 60_000);

  it('a config.pbtxt execution_providers override behaves the same as the flag', async () => {
    const param = (v: string) => `parameters { key: "execution_providers" value: { string_value: "${v}" } }`;
    const repo = makeRepository({
      both: { file: 'conv_small', config: param('cuda,cpu') },
      only: { file: 'conv_small', config: param('cuda') },
    });
    cleanups.push(repo.cleanup);
    const s = await serve(['--model_repository', repo.dir, '--execution_providers', 'cpu'], env());
    try {
      expect(await ready(s, 'both')).toBe(true);
      const only = await fetch(`${s.base}/v2/models/only/ready`).then((r) => r.status);
      expect(only).not.toBe(200);
      expect(s.output()).toContain(`execution providers [cuda]: the CUDA execution provider cannot be loaded: ${NO_DRIVER}`);
      const warns = warnLines(s.output()).filter((l) => l['model'] === 'both' && String(l['msg']).includes('CUDA'));
      expect(warns.map((l) => l['msg'])).toEqual([`CUDA execution provider unavailable (${NO_DRIVER}); the model runs on cpu`]);
    } finally {
      s.child.kill('SIGTERM');
      await s.exited;
    }
  }, 60_000);

  it('without LD_LIBRARY_PATH the reason names the CUDA library that is missing', async () => {
    const repo = makeRepository({ conv: 'conv_small' });
    cleanups.push(repo.cleanup);
    const e = { ...process.env };
    delete e.LD_LIBRARY_PATH;
    const s = await serve(['--model_repository', repo.dir, '--execution_providers', 'cuda,cpu'], e);
    try {
      expect(await ready(s, 'conv')).toBe(true);
      expect(s.output()).toMatch(/CUDA execution provider unavailable \(lib(cublasLt|cublas|curand|cudart)\.so\.\d+: cannot open shared object file/);
    } finally {
      s.child.kill('SIGTERM');
      await s.exited;
    }
  }, 60_000);
});

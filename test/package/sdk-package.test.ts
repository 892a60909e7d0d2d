/**
 * The SDK as a user gets it: `npm pack` this repository (its built dist/), install the
 * tarball into a fresh temporary project (`--prefer-offline`: from the npm cache that
 * `npm ci` filled, the npm registry only for what it lacks), compile the custom-model example against the package's public types with
 * `tsc --strict` (library checks included), serve the compiled module with the installed `kserve-ts` bin
 * (`--model_module`), and infer over V1 and V2 REST. Slow (an install of the whole dependency
 * tree): it runs under the e2e config (npm run test:package), from .ci/run after `npm test`
 * has built dist/.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { json, post } from '../helpers/http.js';
import { freePort } from '../helpers/free-port.js';
import { ROOT } from '../helpers/server.js';
import { tiedToParent } from '../helpers/tied-process.js';
import { spawn } from 'node:child_process';

const work = mkdtempSync(path.join(tmpdir(), 'kserve-ts-package-'));
const project = path.join(work, 'my-model');
afterAll(() => rmSync(work, { recursive: true, force: true }));

function run(cmd: string, args: string[], cwd: string, timeoutMs: number): string {
  const env = { ...process.env, ONNXRUNTIME_NODE_INSTALL: 'skip', npm_config_fund: 'false', npm_config_audit: 'false', npm_config_update_notifier: 'false' };
  const r = spawnSync(cmd, args, { cwd, env, encoding: 'utf8', timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status ?? r.signal}:\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

const TSCONFIG = {
  compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, outDir: 'dist', rootDir: 'src', types: ['node'] },
  include: ['src'],
};

describe('the packed SDK in a fresh project', () => {
  it('installs, type-checks a custom model with tsc --strict, serves it with --model_module and infers', async () => {
    expect(existsSync(path.join(ROOT, 'dist/server/sdk/index.d.ts')), 'dist/ is built (npm run build)').toBe(true);
    const packed = JSON.parse(run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], ROOT, 120_000)) as Array<{ filename: string; files: Array<{ path: string }> }>;
    const tarball = path.join(work, packed[0]?.filename ?? '');
    const files = new Set(packed[0]?.files.map((f) => f.path));
    expect(files.has('dist/server/sdk/index.d.ts') && files.has('dist/bin/kserve-ts.js')).toBe(true);

    mkdirSync(path.join(project, 'src'), { recursive: true });
    writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'my-model', private: true, type: 'module' }, null, 2));
    writeFileSync(path.join(project, 'tsconfig.json'), JSON.stringify(TSCONFIG, null, 2));
    copyFileSync(path.join(ROOT, 'examples/custom-model/iris-classifier.ts'), path.join(project, 'src/iris-classifier.ts'));
    // The versions this repository installed, so the cache has them.
    const installed = (name: string) => (JSON.parse(readFileSync(path.join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
    const devTools = ['typescript', '@types/node'].map((n) => `${n}@${installed(n)}`);
    run('npm', ['install', '--prefer-offline', '--omit=optional', '--no-package-lock', tarball, ...devTools], project, 600_000);

    // The public entry resolves through the exports map, types included.
    run(path.join(project, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.json'], project, 300_000);
    expect(readdirSync(path.join(project, 'dist'))).toContain('iris-classifier.js');

    const port = await freePort();
    const grpcPort = await freePort();
    const args = ['serve', '--model_name', 'iris-species', '--model_module', 'dist/iris-classifier.js', '--model_dir', path.join(ROOT, 'examples/models/iris'), '--http_host', '127.0.0.1', '--http_port', String(port), '--grpc_port', String(grpcPort)];
    const [cmd, argv] = tiedToParent(path.join(project, 'node_modules/.bin/kserve-ts'), args);
    const child = spawn(cmd, argv, { cwd: project, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      // Bounded wait for readiness: at most 60 polls.
      let ready = false;
      for (let i = 0; i < 60 && !ready; i++) {
        await new Promise((r) => setTimeout(r, 1000));
        ready = await fetch(`http://127.0.0.1:${port}/v2/health/ready`).then((r) => r.ok, () => false);
      }
      expect(ready, out).toBe(true);
      const v2 = await post(`http://127.0.0.1:${port}/v2/models/iris-species/infer`, { inputs: [{ name: 'measurements_mm', datatype: 'FP32', shape: [2, 4], data: [51, 35, 14, 2, 67, 30, 52, 23] }] });
      expect(v2.headers.get('x-iris-rows')).toBe('2');
      expect(json(v2)).toMatchObject({ model_name: 'iris-species', outputs: [{ name: 'species', datatype: 'BYTES', data: ['setosa', 'virginica'] }, { name: 'probabilities', shape: [2, 3] }] });
      expect(json(await post(`http://127.0.0.1:${port}/v1/models/iris-species:predict`, { instances: [[51, 35, 14, 2]] }))).toEqual({ predictions: ['setosa'] });
      const bad = await post(`http://127.0.0.1:${port}/v1/models/iris-species:predict`, { instances: [[-1, 35, 14, 2]] });
      expect({ status: bad.status, body: json(bad) }).toEqual({ status: 400, body: { error: 'measurements must be non-negative millimetres' } });
    } finally {
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    }
  }, 900_000);
});

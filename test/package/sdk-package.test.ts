/**
 * The SDK as a user gets it, in the order docs/custom-models.md tells it: `npm pack` this
 * repository (its built dist/), then in a fresh temporary project
 *  1. `npm install` the tarball in a user's environment, not this project's: no
 *     ONNXRUNTIME_NODE_INSTALL, no npm_config_* that `npm run` or .ci/run set, no .npmrc of
 *     this repository; npm's own cache and the npm registry only, as on a user's machine. It
 *     must succeed where nothing but the registry is reachable, and install none of the
 *     optional peer dependencies (onnxruntime-node, TensorFlow, cloud SDKs, Kubernetes client);
 *  2. compile the documentation's own custom model (the `src/doubler.ts` block) with
 *     `tsc --strict` (library checks included), serve it with the installed bin and infer;
 *  3. ask for a feature whose package is missing (an ONNX model folder, an s3:// download, the
 *     controller): one error naming the package to install;
 *  4. install onnxruntime-node as the docs say (ONNXRUNTIME_NODE_INSTALL=skip: NuGet is out of
 *     reach), then compile and serve examples/custom-model (an ONNX session behind a TS model).
 * The install sizes (du of node_modules) are printed for docs/custom-models.md. Slow (two
 * installs): it runs under the e2e config (npm run test:package), from .ci/run after
 * `npm test` has built dist/.
 */
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { json, post } from '../helpers/http.js';
import { freePort } from '../helpers/free-port.js';
import { ROOT } from '../helpers/server.js';
import { tiedToParent } from '../helpers/tied-process.js';

const work = mkdtempSync(path.join(tmpdir(), 'kserve-ts-package-'));
const project = path.join(work, 'my-model');
afterAll(() => rmSync(work, { recursive: true, force: true }));

/**
 * A user's environment: what the machine gives every program (PATH without the node_modules/.bin
 * folders `npm run` puts first, HOME for the user's npm config and cache, the CA and proxy
 * settings), none of what this repository's scripts export.
 */
function userEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const keep = ['HOME', 'TMPDIR', 'LANG', 'TERM', 'NODE_EXTRA_CA_CERTS', 'http_proxy', 'https_proxy', 'no_proxy', 'HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY'];
  const env: NodeJS.ProcessEnv = {};
  for (const k of keep) if (process.env[k] !== undefined) env[k] = process.env[k];
  env['PATH'] = (process.env['PATH'] ?? '')
    .split(path.delimiter)
    .filter((d) => !d.includes(`${path.sep}node_modules${path.sep}`))
    .join(path.delimiter);
  return { ...env, ...extra };
}

interface Ran {
  status: number | null;
  stdout: string;
  /** stdout and stderr. */
  output: string;
}

function exec(cmd: string, args: string[], cwd: string, timeoutMs: number, env: NodeJS.ProcessEnv = userEnv()): Ran {
  const r = spawnSync(cmd, args, { cwd, env, encoding: 'utf8', timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 });
  return { status: r.status, stdout: r.stdout, output: `${r.stdout}\n${r.stderr}` };
}

function run(cmd: string, args: string[], cwd: string, timeoutMs: number, env?: NodeJS.ProcessEnv): string {
  const r = exec(cmd, args, cwd, timeoutMs, env);
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}:\n${r.output}`);
  return r.stdout;
}

/** Disk use of the project's node_modules, in MiB (as `du -sm`). */
function installedMiB(): number {
  return Math.round(Number(run('du', ['-sk', 'node_modules'], project, 60_000).split(/\s/)[0]) / 1024);
}

const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { peerDependencies: Record<string, string> };
const installedVersion = (name: string) => (JSON.parse(readFileSync(path.join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;

/** The `src/doubler.ts` block of docs/custom-models.md: the documentation is what is compiled. */
function docsDoubler(): string {
  const doc = readFileSync(path.join(ROOT, 'docs/custom-models.md'), 'utf8');
  const m = /`src\/doubler\.ts`:\s*```ts\n([\s\S]*?)```/.exec(doc);
  if (!m?.[1]) throw new Error('docs/custom-models.md has no `src/doubler.ts` block');
  return m[1];
}

const TSCONFIG = {
  compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, outDir: 'dist', rootDir: 'src', types: ['node'] },
  include: ['src'],
};

/** Serves `args` with the project's installed bin until ready, runs `check`, stops it (exit 0). */
async function serving(args: string[], check: (base: string) => Promise<void>): Promise<void> {
  const port = await freePort();
  const grpcPort = await freePort();
  const all = ['serve', ...args, '--http_host', '127.0.0.1', '--http_port', String(port), '--grpc_port', String(grpcPort)];
  const [cmd, argv] = tiedToParent(path.join(project, 'node_modules/.bin/kserve-ts'), all);
  const child = spawn(cmd, argv, { cwd: project, env: userEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const base = `http://127.0.0.1:${port}`;
  try {
    // Bounded wait for readiness: at most 60 polls, ended early if the server exits.
    let ready = false;
    let gone = false;
    void exited.then(() => (gone = true));
    for (let i = 0; i < 60 && !ready && !gone; i++) {
      await new Promise((r) => setTimeout(r, 1000));
      ready = await fetch(`${base}/v2/health/ready`).then(
        (r) => r.ok,
        () => false,
      );
    }
    expect(ready, out).toBe(true);
    await check(base);
  } finally {
    child.kill('SIGTERM');
    expect(await exited, out).toBe(0);
  }
}

describe('the packed SDK in a fresh project', () => {
  it('installs from the registry alone without the optional packages, serves the documented custom model, names a missing feature package, then serves an ONNX-backed model once onnxruntime-node is added', async () => {
    expect(existsSync(path.join(ROOT, 'dist/server/sdk/index.d.ts')), 'dist/ is built (npm run build)').toBe(true);
    const packed = JSON.parse(run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], ROOT, 120_000, process.env)) as Array<{
      filename: string;
      files: Array<{ path: string }>;
    }>;
    const tarball = path.join(work, packed[0]?.filename ?? '');
    const files = new Set(packed[0]?.files.map((f) => f.path));
    expect(files.has('dist/server/sdk/index.d.ts') && files.has('dist/bin/kserve-ts.js')).toBe(true);

    mkdirSync(path.join(project, 'src'), { recursive: true });
    writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'my-model', private: true, type: 'module' }, null, 2));
    writeFileSync(path.join(project, 'tsconfig.json'), JSON.stringify(TSCONFIG, null, 2));

    // 1. As docs/custom-models.md installs: the package, then the compiler (the versions this
    //    repository uses, so a run does not depend on a compiler release).
    const devTools = ['typescript', '@types/node'].map((n) => `${n}@${installedVersion(n)}`);
    run('npm', ['install', tarball], project, 600_000);
    for (const name of Object.keys(pkg.peerDependencies)) {
      expect(existsSync(path.join(project, 'node_modules', name)), `${name} is optional and was not asked for`).toBe(false);
    }
    const sdkMiB = installedMiB();
    run('npm', ['install', '-D', ...devTools], project, 600_000);

    // 2. The documentation's custom model, compiled against the public types and served.
    writeFileSync(path.join(project, 'src/doubler.ts'), docsDoubler());
    run(path.join(project, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.json'], project, 300_000);
    await serving(['--model_name', 'doubler', '--model_module', 'dist/doubler.js'], async (base) => {
      expect(json(await post(`${base}/v1/models/doubler:predict`, { instances: [1, 2.5] }))).toEqual({ predictions: [2, 5] });
      const bad = await post(`${base}/v2/models/doubler/infer`, { inputs: [{ name: 'x', datatype: 'FP32', shape: [1], data: [-1] }] });
      expect({ status: bad.status, body: json(bad) }).toEqual({ status: 400, body: { error: 'x must be non-negative' } });
    });

    // 3. Features whose optional package is not installed: one line naming it.
    const bin = path.join(project, 'node_modules/.bin/kserve-ts');
    const onnx = exec(
      bin,
      ['serve', '--model_name', 'iris', '--model_dir', path.join(ROOT, 'examples/models/iris'), '--http_host', '127.0.0.1', '--http_port', '0', '--grpc_port', '0'],
      project,
      120_000,
    );
    expect(onnx.status, onnx.output).toBe(1);
    expect(onnx.output).toContain(
      `needs the package onnxruntime-node, which is not installed: npm install onnxruntime-node@${pkg.peerDependencies['onnxruntime-node']} (with ONNXRUNTIME_NODE_INSTALL=skip`,
    );
    const s3 = exec(bin, ['storage-initializer', 's3://models/iris', path.join(work, 'download')], project, 120_000);
    expect(s3.status, s3.output).toBe(1);
    expect(s3.output).toContain(
      `s3:// downloads needs the package @aws-sdk/client-s3, which is not installed: npm install @aws-sdk/client-s3@${pkg.peerDependencies['@aws-sdk/client-s3']}`,
    );
    const controller = exec(bin, ['controller', '--help'], project, 120_000);
    expect(controller.status, controller.output).toBe(1);
    expect(controller.output).toContain(
      `kserve-ts controller needs the package @kubernetes/client-node, which is not installed: npm install @kubernetes/client-node@${pkg.peerDependencies['@kubernetes/client-node']}`,
    );

    // 4. onnxruntime-node as the docs add it where NuGet is out of reach, and the ONNX-backed example.
    run('npm', ['install', `onnxruntime-node@${installedVersion('onnxruntime-node')}`], project, 600_000, userEnv({ ONNXRUNTIME_NODE_INSTALL: 'skip' }));
    const onnxMiB = installedMiB();
    copyFileSync(path.join(ROOT, 'examples/custom-model/iris-classifier.ts'), path.join(project, 'src/iris-classifier.ts'));
    run(path.join(project, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.json'], project, 300_000);
    expect(readdirSync(path.join(project, 'dist'))).toContain('iris-classifier.js');
    await serving(['--model_name', 'iris-species', '--model_module', 'dist/iris-classifier.js', '--model_dir', path.join(ROOT, 'examples/models/iris')], async (base) => {
      const v2 = await post(`${base}/v2/models/iris-species/infer`, {
        inputs: [{ name: 'measurements_mm', datatype: 'FP32', shape: [2, 4], data: [51, 35, 14, 2, 67, 30, 52, 23] }],
      });
      expect(v2.headers.get('x-iris-rows')).toBe('2');
      expect(json(v2)).toMatchObject({
        model_name: 'iris-species',
        outputs: [
          { name: 'species', datatype: 'BYTES', data: ['setosa', 'virginica'] },
          { name: 'probabilities', shape: [2, 3] },
        ],
      });
      expect(json(await post(`${base}/v1/models/iris-species:predict`, { instances: [[51, 35, 14, 2]] }))).toEqual({ predictions: ['setosa'] });
      const bad = await post(`${base}/v1/models/iris-species:predict`, { instances: [[-1, 35, 14, 2]] });
      expect({ status: bad.status, body: json(bad) }).toEqual({ status: 400, body: { error: 'measurements must be non-negative millimetres' } });
    });
    process.stdout.write(`[package] node_modules of the fresh project: ${sdkMiB} MiB with kserve-ts alone, ${onnxMiB} MiB with the compiler and onnxruntime-node added\n`);
  }, 1_500_000);
});

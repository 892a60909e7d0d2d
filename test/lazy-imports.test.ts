/**
 * Start-up cost (#19): a started server imports the gRPC stack, the request logger's HTTP
 * client and Swagger UI only when its configuration uses them, and still serves them when it
 * does. Each case is a fresh Node process (the test runner's own module cache holds all of
 * them), built from dist/ as `kserve-ts serve` runs, that reports which packages it loaded.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { IRIS_DIR, ROOT } from './helpers/server.js';

const PROBE = `
import { createRequire } from 'node:module';
const [dist, argv] = JSON.parse(process.argv[2]);
const { parseServeArgs } = await import(dist + '/server/config.js');
const { createLogger } = await import(dist + '/server/logger.js');
const { createServer, defaultBackends } = await import(dist + '/server/server.js');
const backends = defaultBackends();
const { config } = parseServeArgs(argv, {}, backends.flags());
const server = await createServer(config, createLogger('warn'), { backends, loadStartupModels: true, defaultMetrics: false });
await server.startupLoad;
await server.http.listen({ host: '127.0.0.1', port: 0 });
const grpcPort = server.grpc === undefined ? 0 : await server.grpc.listen('127.0.0.1', 0);
const files = Object.keys(createRequire(import.meta.url).cache);
const has = (pkg) => files.some((f) => f.includes('/node_modules/' + pkg + '/'));
const docs = (await fetch('http://127.0.0.1:' + server.http.server.address().port + '/docs')).status;
process.stdout.write('\\nRESULT ' + JSON.stringify({ ready: server.repository.readyCount(), grpcPort, docs,
  grpc: has('@grpc/grpc-js'), undici: has('undici'), swaggerUi: has('@fastify/swagger-ui') }) + '\\n');
await server.close();
// The probe's answer is written; what still winds down (log streams) is not under test.
process.exit(0);
`;

// A file, not `-e`: worker threads inherit the process's execArgv, and `--input-type` with them.
const dir = mkdtempSync(path.join(tmpdir(), 'kserve-ts-lazy-'));
const probeFile = path.join(dir, 'probe.mjs');
writeFileSync(probeFile, PROBE);
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const DIST = pathToFileURL(path.join(ROOT, 'dist')).href;

function probe(argv: readonly string[]): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [probeFile, JSON.stringify([DIST, argv])], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      const line = out.split('\n').find((l) => l.startsWith('RESULT '));
      if (code === 0 && line !== undefined) resolve(JSON.parse(line.slice('RESULT '.length)) as Record<string, unknown>);
      else reject(new Error(`probe exited ${code}: ${err}${out}`));
    });
  });
}

const BASE = ['--model_name', 'iris', '--model_dir', IRIS_DIR, '--http_host', '127.0.0.1', '--http_port', '0', '--grpc_port', '0', '--log_level', 'warn'];

describe('start-up imports follow the configuration', () => {
  it('gRPC off, no request logger, no docs: none of their packages is loaded, the model is ready', async () => {
    const r = await probe([...BASE, '--enable_grpc', 'false']);
    expect(r).toEqual({ ready: 1, grpcPort: 0, docs: 404, grpc: false, undici: false, swaggerUi: false });
  }, 90_000);

  it('gRPC on, --logger_url and --enable_docs_url: each is loaded and serves', async () => {
    const r = await probe([...BASE, '--enable_docs_url', 'true', '--logger_url', 'http://127.0.0.1:9/events']);
    expect(r).toMatchObject({ ready: 1, docs: 200, grpc: true, undici: true, swaggerUi: true });
    expect(r['grpcPort']).toBeGreaterThan(0);
  }, 90_000);
});

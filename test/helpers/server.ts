/**
 * Starts a real model server in-process on a loopback port for tests, with real
 * onnxruntime sessions on the committed fixture models.
 */
import { cpSync, mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Logger, pino } from 'pino';
import { parseServeArgs } from '../../server/config.js';
import type { BackendRegistry } from '../../server/backend/backend-registry.js';
import { type ModelServer, createServer, defaultBackends } from '../../server/server.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const FIXTURES = path.join(ROOT, 'test/fixtures/models');
export const IRIS_DIR = path.join(ROOT, 'examples/models/iris');

export function fixture(name: string): string {
  return path.join(FIXTURES, `${name}.onnx`);
}

/**
 * Builds a Triton-style repository in a temp folder. `layout` maps a model name to either a
 * fixture name (unversioned) or { version: fixture } for numeric version folders; an
 * optional `config.pbtxt` text goes beside it.
 */
export function makeRepository(layout: Record<string, string | { versions?: Record<string, string>; config?: string; file?: string }>): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(path.join(tmpdir(), 'kserve-ts-repo-'));
  for (const [name, spec] of Object.entries(layout)) {
    const modelDir = path.join(dir, name);
    mkdirSync(modelDir, { recursive: true });
    if (typeof spec === 'string') {
      cpSync(fixture(spec), path.join(modelDir, 'model.onnx'));
      continue;
    }
    if (spec.file !== undefined) cpSync(fixture(spec.file), path.join(modelDir, 'model.onnx'));
    for (const [v, f] of Object.entries(spec.versions ?? {})) {
      mkdirSync(path.join(modelDir, v));
      cpSync(fixture(f), path.join(modelDir, v, 'model.onnx'));
    }
    if (spec.config !== undefined) writeFileSync(path.join(modelDir, 'config.pbtxt'), spec.config);
  }
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface TestServer {
  readonly server: ModelServer;
  /** Base URL of the REST server, e.g. http://127.0.0.1:41234 */
  readonly url: string;
  /** gRPC target when started with `{ grpc: true }`, e.g. 127.0.0.1:41235 */
  readonly grpcAddress: string | undefined;
  close(): Promise<void>;
}

export interface BuildOptions {
  grpc?: boolean;
  logger?: Logger;
  backends?: BackendRegistry;
  /** The environment `kserve-ts serve` would see (storage credentials for the puller); empty by default. */
  env?: NodeJS.ProcessEnv;
  /** Start loading the models as `kserve-ts serve` does (ModelServer.startupLoad); default: the caller loads them. */
  loadStartupModels?: boolean;
}

/**
 * Builds a server with CLI-style flags (as `kserve-ts serve` would get them), on loopback and
 * port 0 unless the flags say otherwise; nothing bound, no model loaded yet. `logger`
 * receives the server's log (silent otherwise, unless TEST_LOG_LEVEL says); `backends`
 * replaces the default registry (e.g. ModelGate's, test/helpers/model-gate.ts).
 */
export async function buildServer(flags: readonly string[], opts: BuildOptions = {}): Promise<ModelServer> {
  const backends = opts.backends ?? defaultBackends();
  const { config } = parseServeArgs(
    ['--http_port', '0', '--http_host', '127.0.0.1', '--enable_grpc', opts.grpc ? 'true' : 'false', '--intra_op_threads', '1', '--grace_period_seconds', '5', ...flags],
    opts.env ?? {},
    backends.flags(),
  );
  return createServer(config, opts.logger ?? pino({ level: process.env['TEST_LOG_LEVEL'] ?? 'silent' }), {
    backends,
    defaultMetrics: false,
    ...(opts.loadStartupModels === true ? { loadStartupModels: true } : {}),
  });
}

/**
 * Starts a server (buildServer) on port 0 and loads its models. `grpc: true` also serves
 * gRPC on a free loopback port (see `grpcAddress`); `backends` as for buildServer.
 */
export async function startServer(flags: string[], opts: { grpc?: boolean; logger?: Logger; backends?: BackendRegistry } = {}): Promise<TestServer> {
  const server = await buildServer(flags, opts);
  await server.http.listen({ host: '127.0.0.1', port: 0 });
  const grpcPort = server.grpc === undefined ? undefined : await server.grpc.listen('127.0.0.1', 0);
  await server.repository.loadStartupModels();
  const addr = server.http.server.address();
  if (addr === null || typeof addr === 'string') throw new Error('no address');
  return {
    server,
    url: `http://127.0.0.1:${addr.port}`,
    grpcAddress: grpcPort === undefined ? undefined : `127.0.0.1:${grpcPort}`,
    close: () => server.close(),
  };
}

/**
 * Runs the k6 scripts in benchmarks/k6/ without k6 (AGPL, not used by this project): a
 * test-only harness that provides the subset of the k6 API the scripts use (shim/*.mjs) and
 * runs a script's default function for a bounded number of iterations, as one VU, against a
 * live server. The script runs in a worker thread whose k6 calls block on the main thread,
 * which performs the real HTTP and gRPC requests (fetch, @grpc/grpc-js).
 *
 * Timing thresholds (p95) are k6's business and are not evaluated; rate thresholds on checks
 * and failed requests are, since they say whether the answers were right.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { MessageChannel, Worker } from 'node:worker_threads';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const K6_DIR = path.resolve(HERE, '../../benchmarks/k6');
const SHIMS: Record<string, string> = {
  k6: 'k6.mjs',
  'k6/http': 'k6-http.mjs',
  'k6/net/grpc': 'k6-net-grpc.mjs',
  'k6/encoding': 'k6-encoding.mjs',
};

export interface K6Run {
  readonly checks: Record<string, { passes: number; fails: number }>;
  readonly counters: { http_reqs: number; http_req_failed: number; grpc_reqs: number };
  readonly options: { thresholds?: Record<string, string[]>; scenarios?: Record<string, unknown> };
  readonly error: string | undefined;
}

interface HttpCall {
  kind: 'http';
  method: string;
  url: string;
  body: string | ArrayBuffer | null;
  headers: Record<string, string>;
  binary: boolean;
}
interface GrpcConnect {
  kind: 'grpc-connect';
  client: number;
  address: string;
  includeDirs: string[];
  files: string[];
}
interface GrpcInvoke {
  kind: 'grpc-invoke';
  client: number;
  method: string;
  message: unknown;
  metadata: Record<string, string>;
}
interface GrpcClose {
  kind: 'grpc-close';
  client: number;
}
type ShimCall = HttpCall | GrpcConnect | GrpcInvoke | GrpcClose;

/** Go's CanonicalMIMEHeaderKey, which k6 applies to response header names. */
const canonical = (name: string): string =>
  name
    .split('-')
    .map((p) => p.charAt(0).toUpperCase() + p.slice(1).toLowerCase())
    .join('-');

/** A copy of the scripts folder whose `k6...` imports name the shims. */
function stageScripts(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'kserve-ts-k6-'));
  for (const f of readdirSync(K6_DIR).filter((n) => n.endsWith('.js'))) {
    const text = readFileSync(path.join(K6_DIR, f), 'utf8').replace(/from\s+'(k6(?:\/[\w/]+)?)'/g, (m, spec: string) => {
      const shim = SHIMS[spec];
      if (shim === undefined) throw new Error(`${f} imports ${spec}, which the k6 test harness does not provide`);
      return `from '${pathToFileURL(path.join(HERE, 'shim', shim)).href}'`;
    });
    writeFileSync(path.join(dir, f), text);
  }
  return dir;
}

class GrpcClients {
  readonly #clients = new Map<number, { client: grpc.Client; methods: Map<string, protoLoader.MethodDefinition<object, object>> }>();

  connect(c: GrpcConnect): void {
    const defs = protoLoader.loadSync(c.files, { includeDirs: c.includeDirs, keepCase: true, longs: String, enums: String, bytes: String, defaults: true, oneofs: true });
    const methods = new Map<string, protoLoader.MethodDefinition<object, object>>();
    for (const [service, def] of Object.entries(defs)) {
      if ('format' in def) continue; // a message or enum type, not a service
      for (const [name, m] of Object.entries(def)) methods.set(`${service}/${name}`, m);
    }
    this.#clients.set(c.client, { client: new grpc.Client(c.address, grpc.credentials.createInsecure()), methods });
  }

  invoke(c: GrpcInvoke): Promise<unknown> {
    const entry = this.#clients.get(c.client);
    if (entry === undefined) return Promise.resolve({ shimError: 'grpc.Client: connect() before invoke()' });
    const m = entry.methods.get(c.method);
    if (m === undefined) return Promise.resolve({ shimError: `grpc.Client: unknown method ${c.method}` });
    const md = new grpc.Metadata();
    for (const [k, v] of Object.entries(c.metadata)) md.set(k, v);
    return new Promise((resolve) => {
      entry.client.makeUnaryRequest(m.path, m.requestSerialize, m.responseDeserialize, c.message as object, md, (err, message) => {
        resolve(err ? { status: err.code, message: null, error: { code: err.code, message: err.details } } : { status: grpc.status.OK, message, error: null });
      });
    });
  }

  close(id: number): void {
    this.#clients.get(id)?.client.close();
    this.#clients.delete(id);
  }

  closeAll(): void {
    for (const id of [...this.#clients.keys()]) this.close(id);
  }
}

async function httpCall(c: HttpCall): Promise<unknown> {
  try {
    const init: RequestInit = { method: c.method, headers: c.headers, signal: AbortSignal.timeout(30_000) };
    if (c.body !== null) init.body = c.body;
    const r = await fetch(c.url, init);
    const headers: Record<string, string> = {};
    r.headers.forEach((v, k) => (headers[canonical(k)] = v));
    const body = c.binary ? await r.arrayBuffer() : await r.text();
    return { status: r.status, headers, body };
  } catch (e) {
    return { status: 0, headers: {}, body: null, error: (e as Error).message };
  }
}

/**
 * Runs `script` (a file name in benchmarks/k6/) with `env` as __ENV for `iterations`
 * iterations. Resolves with the checks and counters; rejects only on a harness failure.
 */
export async function runK6Script(script: string, env: Record<string, string>, iterations: number): Promise<K6Run> {
  const dir = stageScripts();
  const grpcClients = new GrpcClients();
  const { port1, port2 } = new MessageChannel();
  const flag = new SharedArrayBuffer(4);
  const state = new Int32Array(flag);
  const worker = new Worker(path.join(HERE, 'shim', 'worker.mjs'), {
    workerData: { script: path.join(dir, script), scriptDir: K6_DIR, env, iterations, port: port2, flag },
    transferList: [port2],
  });
  try {
    return await new Promise<K6Run>((resolve, reject) => {
      worker.on('error', reject);
      worker.on('exit', (code) => reject(new Error(`k6 script worker exited (${code}) before reporting`)));
      worker.on('message', (msg: { results: Pick<K6Run, 'checks' | 'counters'>; options: K6Run['options']; error?: string }) => {
        resolve({ checks: msg.results.checks, counters: msg.results.counters, options: msg.options, error: msg.error });
      });
      port1.on('message', (msg: ShimCall) => {
        const answer = (async (): Promise<unknown> => {
          switch (msg.kind) {
            case 'http':
              return httpCall(msg);
            case 'grpc-connect':
              grpcClients.connect(msg);
              return {};
            case 'grpc-invoke':
              return grpcClients.invoke(msg);
            case 'grpc-close':
              grpcClients.close(msg.client);
              return {};
          }
        })();
        void answer
          .catch((e: Error) => ({ shimError: e.message }))
          .then((a) => {
            port1.postMessage(a);
            Atomics.store(state, 0, 1);
            Atomics.notify(state, 0);
          });
      });
    });
  } finally {
    grpcClients.closeAll();
    port1.close();
    await worker.terminate();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Evaluates a k6 rate threshold such as `rate>0.99` or `rate<0.01` against a rate. */
export function rateThresholdHolds(expr: string, rate: number): boolean {
  const m = /^rate\s*([<>]=?)\s*([\d.]+)$/.exec(expr.trim());
  if (m === null) throw new Error(`not a rate threshold: ${expr}`);
  const limit = Number(m[2]);
  switch (m[1]) {
    case '<':
      return rate < limit;
    case '<=':
      return rate <= limit;
    case '>':
      return rate > limit;
    default:
      return rate >= limit;
  }
}

/**
 * `kserve-ts serve --model_module`: the built CLI as a child process loads a user's ES module
 * (a Model subclass, or a factory) as --model_name, hands it --model_dir, and serves it;
 * a module without a model is a start-up failure (NoModelReady, exit 1). The modules import
 * the built SDK entry (dist/server/sdk/index.js) as an installed package would resolve it.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { expectError, get, json, metricValue, post } from '../helpers/http.js';
import { type CliProcess, restPort, runCli } from '../helpers/process.js';
import { ROOT } from '../helpers/server.js';

const LOOPBACK = ['--http_host', '127.0.0.1', '--http_port', '0', '--grpc_port', '0'];
const SDK = pathToFileURL(path.join(ROOT, 'dist/server/sdk/index.js')).href;
const dir = mkdtempSync(path.join(tmpdir(), 'kserve-ts-module-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function module(name: string, text: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, text);
  return file;
}

const CLASS_MODULE = `
import { Model, InferResponse, InferOutput } from ${JSON.stringify(SDK)};
export default class Doubler extends Model {
  constructor(name, options) { super(name); this.modelDir = options.modelDir; }
  getInputTypes() { return [{ name: 'x', datatype: 'FP64', shape: [-1] }]; }
  async predict(request) {
    const x = request.getInput('x');
    return new InferResponse(this.name, [
      new InferOutput('y', x.shape, 'FP64', x.asNumbers().map((v) => v * 2)),
      new InferOutput('dir', [1], 'BYTES', [String(this.modelDir)]),
    ]);
  }
}
`;

const FACTORY_MODULE = `
import { Model, InferResponse, InferOutput } from ${JSON.stringify(SDK)};
class Negate extends Model {
  predict(request) {
    const x = request.getInput('x');
    return new InferResponse(this.name, [new InferOutput('y', x.shape, x.datatype, x.asNumbers().map((v) => -v))]);
  }
}
export function model(options) { return new Negate(options.name); }
`;

const STARTED = path.join(dir, 'started');
const RELEASE = path.join(dir, 'release');
const BLOCKING_MODULE = `
import { existsSync, writeFileSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';
import { Model, InferResponse, InferOutput, InvalidInput } from ${JSON.stringify(SDK)};
export default class Blocking extends Model {
  predict(request, headers, responseHeaders) {
    if (headers['x-fail'] === 'input') throw new InvalidInput('bad input from the worker');
    if (headers['x-fail'] === 'crash') throw new RangeError('boom');
    if (headers['x-fail'] === 'exit') process.exit(3);
    responseHeaders['x-thread'] = isMainThread ? 'main' : 'worker';
    if (headers['x-block'] === 'yes') {
      writeFileSync(${JSON.stringify(STARTED)}, '');
      // Synchronous, blocking its thread until the test releases it (60 s at most).
      const until = Date.now() + 60_000;
      while (!existsSync(${JSON.stringify(RELEASE)}) && Date.now() < until) {}
    }
    return new InferResponse(this.name, [new InferOutput('y', [1], 'FP32', [1])]);
  }
}
`;

const WATCHING = path.join(dir, 'watching');
const SAW_ABORT = path.join(dir, 'saw-abort');
const RAN = path.join(dir, 'ran');
const HELD = path.join(dir, 'held');
const UNHOLD = path.join(dir, 'unhold');
/** Hooks whose client goes away: one waits on request.signal, one blocks its thread, the others record that they ran. */
const CLIENT_GONE_MODULE = `
import { appendFileSync, existsSync, writeFileSync } from 'node:fs';
import { Model, InferResponse, InferOutput } from ${JSON.stringify(SDK)};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
export default class Watcher extends Model {
  async predict(request, headers) {
    if (headers['x-watch'] === 'yes') {
      writeFileSync(${JSON.stringify(WATCHING)}, '');
      // Until the client is gone (60 s at most); then says it saw it.
      for (let i = 0; i < 6000 && request.signal?.aborted !== true; i++) await sleep(10);
      if (request.signal?.aborted === true) writeFileSync(${JSON.stringify(SAW_ABORT)}, '');
    } else if (headers['x-hold'] === 'yes') {
      writeFileSync(${JSON.stringify(HELD)}, '');
      // Synchronous, blocking the model's thread until the test releases it (60 s at most).
      const until = Date.now() + 60_000;
      while (!existsSync(${JSON.stringify(UNHOLD)}) && Date.now() < until) {}
    } else appendFileSync(${JSON.stringify(RAN)}, headers['x-tag'] + '\\n');
    return new InferResponse(this.name, [new InferOutput('y', [1], 'FP32', [1])]);
  }
}
`;

const TS_MODULE = `
import { Model, InferResponse, InferOutput, type InferRequest } from ${JSON.stringify(SDK)};
import { isMainThread } from 'node:worker_threads';
enum Scale { Double = 2 }
interface Scaled { readonly values: number[] }
export default class Typed extends Model {
  predict(request: InferRequest): InferResponse {
    const x = request.getInput('x');
    const scaled: Scaled = { values: (x?.asNumbers() ?? []).map((v) => v * Scale.Double) };
    return new InferResponse(this.name, [new InferOutput('y', [scaled.values.length], 'FP64', scaled.values), new InferOutput('thread', [1], 'BYTES', [isMainThread ? 'main' : 'worker'])]);
  }
}
`;

/** The base URL once the server has started. */
async function started(p: CliProcess): Promise<string> {
  const port = await restPort(p);
  await p.waitForLog((l) => l['msg'] === 'server started');
  return `http://127.0.0.1:${port}`;
}

/** Stops the server; a clean shutdown exits 0. */
async function stopped(p: CliProcess): Promise<void> {
  p.child.kill('SIGTERM');
  expect(await p.exited).toBe(0);
}

const X1 = { inputs: [{ name: 'x', datatype: 'FP32', shape: [1], data: [1] }] };

/** POSTs X1 with a client the test can make go away; `answer` is the error's name once it has. */
function abortable(url: string, headers: Record<string, string>): { client: AbortController; answer: Promise<unknown> } {
  const client = new AbortController();
  const init = { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(X1), signal: client.signal };
  return { client, answer: fetch(url, init).catch((e: Error) => e.name) };
}

async function until(what: string, done: () => boolean | Promise<boolean>): Promise<void> {
  // Bounded (60 s); each test's own timeout bounds it too.
  for (let i = 0; i < 600; i++) {
    if (await done()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what}: not within 60 s`);
}

describe('kserve-ts serve --model_module', () => {
  it('serves a Model subclass as --model_name, with --model_dir handed to it', async () => {
    const file = module('doubler.mjs', CLASS_MODULE);
    const p = runCli(['serve', '--model_name', 'doubler', '--model_module', file, '--model_dir', '/mnt/models', ...LOOPBACK]);
    try {
      const base = await started(p);
      expect(json(await post(`${base}/v1/models/doubler:predict`, { instances: [1.5, 2] }))).toEqual({ predictions: [3, 4] });
      const v2 = json(await post(`${base}/v2/models/doubler/infer`, { inputs: [{ name: 'x', datatype: 'FP64', shape: [1], data: [4] }] }));
      expect(v2).toMatchObject({
        outputs: [
          { name: 'y', data: [8] },
          { name: 'dir', data: ['/mnt/models'] },
        ],
      });
    } finally {
      await stopped(p);
    }
  });

  it('serves what a factory export returns', async () => {
    const file = module('negate.mjs', FACTORY_MODULE);
    const p = runCli(['serve', '--model-name=neg', `--model-module=${file}`, ...LOOPBACK]);
    try {
      const base = await started(p);
      const v2 = json(await post(`${base}/v2/models/neg/infer`, { inputs: [{ name: 'x', datatype: 'INT32', shape: [2], data: [3, -4] }] }));
      expect(v2).toMatchObject({ model_name: 'neg', outputs: [{ name: 'y', datatype: 'INT32', data: [-3, 4] }] });
    } finally {
      await stopped(p);
    }
  });

  it('a module that exports no model fails start-up with NoModelReady naming the cause', async () => {
    const file = module('empty.mjs', 'export const answer = 42;\n');
    const p = runCli(['serve', '--model_name', 'm', '--model_module', file, ...LOOPBACK]);
    expect(await p.exited).toBe(1);
    expect(p.output()).toMatch(/no model is ready \(m: .*exports no Model subclass or factory/);
  });

  it('--model_module_worker runs blocking hooks in a worker thread: health answers while predict blocks', async () => {
    const file = module('blocking.mjs', BLOCKING_MODULE);
    const p = runCli(['serve', '--model_name', 'blocking', '--model_module', file, '--model_module_worker', ...LOOPBACK]);
    try {
      const base = await started(p);
      const body = { inputs: [{ name: 'x', datatype: 'FP32', shape: [1], data: [1] }] };
      const blocked = post(`${base}/v2/models/blocking/infer`, body, { 'x-block': 'yes' });
      for (let i = 0; i < 300 && !existsSync(STARTED); i++) await new Promise((r) => setTimeout(r, 100));
      expect(existsSync(STARTED)).toBe(true);
      // predict is now spinning; on the main thread these would wait for it.
      expect((await get(`${base}/v2/health/live`)).status).toBe(200);
      expect((await get(`${base}/v2/models/blocking/ready`)).status).toBe(200);
      writeFileSync(RELEASE, '');
      const r = await blocked;
      expect(r.status).toBe(200);
      expect(r.headers.get('x-thread')).toBe('worker');
      expectError(await post(`${base}/v2/models/blocking/infer`, body, { 'x-fail': 'input' }), 400, /^bad input from the worker$/);
      expectError(await post(`${base}/v2/models/blocking/infer`, body, { 'x-fail': 'crash' }), 500, /^Model blocking failed: RangeError : boom$/);
      // The thread dies: its request fails clearly, the server stays up and reloads the model.
      expectError(await post(`${base}/v2/models/blocking/infer`, body, { 'x-fail': 'exit' }), 503, /^Model with name blocking is not ready\. model worker exited with code 3$/);
      expect((await get(`${base}/v2/health/live`)).status).toBe(200);
      let again = 0;
      for (let i = 0; i < 100 && again !== 200; i++) {
        again = (await post(`${base}/v2/models/blocking/infer`, body)).status;
        if (again !== 200) await new Promise((r) => setTimeout(r, 100));
      }
      expect(again).toBe(200);
    } finally {
      writeFileSync(RELEASE, '');
      await stopped(p);
    }
  });

  it('--model_module_worker: a request whose client went away before its hooks started never runs them', async () => {
    const file = module('gone-queued.mjs', CLIENT_GONE_MODULE);
    const p = runCli(['serve', '--model_name', 'watcher', '--model_module', file, '--model_module_worker', ...LOOPBACK]);
    try {
      const base = await started(p);
      const depth = async () => metricValue((await get(`${base}/metrics`)).text, 'kserve_model_queue_depth', { model_name: 'watcher' });
      const held = post(`${base}/v2/models/watcher/infer`, X1, { 'x-hold': 'yes' });
      await until('the first request holds the model thread', () => existsSync(HELD));
      const { client, answer: gone } = abortable(`${base}/v2/models/watcher/infer`, { 'x-tag': 'gone' });
      // Queued behind the held one (two in flight), then its client goes; the server drops it (one in flight).
      await until('the second request is queued', async () => (await depth()) === 2);
      client.abort();
      expect(await gone).toBe('AbortError');
      await until('the server let the gone request go', async () => (await depth()) === 1);
      writeFileSync(UNHOLD, '');
      expect((await held).status).toBe(200);
      // Queued after the gone one: by its answer, the gone one has been skipped or run.
      expect((await post(`${base}/v2/models/watcher/infer`, X1, { 'x-tag': 'after' })).status).toBe(200);
      expect(readFileSync(RAN, 'utf8')).toBe('after\n');
    } finally {
      writeFileSync(UNHOLD, '');
      await stopped(p);
    }
  });

  it('--model_module_worker: a running hook sees request.signal aborted when its client goes away', async () => {
    const file = module('gone-running.mjs', CLIENT_GONE_MODULE);
    const p = runCli(['serve', '--model_name', 'watcher', '--model_module', file, '--model_module_worker', ...LOOPBACK]);
    try {
      const base = await started(p);
      const { client, answer: watched } = abortable(`${base}/v2/models/watcher/infer`, { 'x-watch': 'yes' });
      await until('the hook is running', () => existsSync(WATCHING));
      client.abort();
      expect(await watched).toBe('AbortError');
      await until('the hook saw request.signal aborted', () => existsSync(SAW_ABORT));
    } finally {
      await stopped(p);
    }
  });

  it.each([
    ['inline', []],
    ['--model_module_worker', ['--model_module_worker']],
  ])('a .ts module under `node --import tsx` is served %s', async (_mode, extra) => {
    const file = module(`typed-${extra.length}.ts`, TS_MODULE);
    const p = runCli(['serve', '--model_name', 'typed', '--model_module', file, ...extra, ...LOOPBACK], ['--import', 'tsx']);
    try {
      const base = await started(p);
      const v2 = json(await post(`${base}/v2/models/typed/infer`, { inputs: [{ name: 'x', datatype: 'FP64', shape: [2], data: [1.5, -2] }] }));
      expect(v2).toMatchObject({
        outputs: [
          { name: 'y', data: [3, -4] },
          { name: 'thread', data: [extra.length === 0 ? 'main' : 'worker'] },
        ],
      });
    } finally {
      await stopped(p);
    }
  });

  it('without worker mode the same hooks run on the main thread', async () => {
    const file = module('blocking-main.mjs', BLOCKING_MODULE);
    const p = runCli(['serve', '--model_name', 'blocking', '--model_module', file, ...LOOPBACK]);
    try {
      const base = await started(p);
      const r = await post(`${base}/v2/models/blocking/infer`, { inputs: [{ name: 'x', datatype: 'FP32', shape: [1], data: [1] }] });
      expect(r.headers.get('x-thread')).toBe('main');
    } finally {
      await stopped(p);
    }
  });

  it('is listed among the backend flags in --help', async () => {
    const p = runCli(['serve', '--help']);
    expect(await p.exited).toBe(0);
    expect(p.output()).toMatch(/--model_module PATH\s+JavaScript module exporting a kserve-ts Model/);
  });
});

/**
 * Faults a `--model_module` model leaves behind, and what the process does with them
 * (server/process-faults.ts, docs/custom-models.md "Faults outside a request"), on the built
 * CLI as a child process: a stray rejected promise is one JSON log line and the server
 * serves on (main thread and worker thread); an exception thrown later from a callback a
 * hook started fails and reloads that model; an uncaught exception no model owns is a
 * fatal JSON line and exit 1. And user errors stay bounded: a 10 MB message is neither
 * echoed whole into the 500 nor into the log; a thrown object without a prototype is a 500
 * like any other.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { expectError, get, post } from '../helpers/http.js';
import { type CliProcess, restPort, runCli } from '../helpers/process.js';
import { ROOT } from '../helpers/server.js';

const LOOPBACK = ['--http_host', '127.0.0.1', '--http_port', '0', '--grpc_port', '0'];
const SDK = pathToFileURL(path.join(ROOT, 'dist/server/sdk/index.js')).href;
const dir = mkdtempSync(path.join(tmpdir(), 'kserve-ts-faults-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const FAULTS_MODULE = `
import { AsyncResource } from 'node:async_hooks';
import { isMainThread } from 'node:worker_threads';
import { Model, InferResponse, InferOutput } from ${JSON.stringify(SDK)};
// Made at import, outside any request: a callback run in its scope belongs to no model.
const outside = new AsyncResource('outside-any-model');
export default class Faults extends Model {
  predict(request, headers, responseHeaders) {
    responseHeaders['x-thread'] = isMainThread ? 'main' : 'worker';
    const fault = headers['x-fault'];
    if (fault === 'reject') Promise.reject(new Error('stray ' + 'r'.repeat(10_000_000)));
    if (fault === 'throw-later') setTimeout(() => { throw new Error('late'); }, 0);
    if (fault === 'escape') outside.runInAsyncScope(() => setTimeout(() => { throw new Error('server-side fault'); }, 0));
    if (fault === 'huge') throw new Error('h'.repeat(10_000_000));
    if (fault === 'null-proto') throw Object.assign(Object.create(null), { code: 7 });
    return new InferResponse(this.name, [new InferOutput('y', [1], 'FP32', [1])]);
  }
}
`;
const file = path.join(dir, 'faults.mjs');
writeFileSync(file, FAULTS_MODULE);
const BODY = { inputs: [{ name: 'x', datatype: 'FP32', shape: [1], data: [1] }] };

async function start(extra: string[] = []): Promise<{ p: CliProcess; base: string }> {
  const p = runCli(['serve', '--model_name', 'faults', '--model_module', file, ...LOOPBACK, ...extra]);
  const port = await restPort(p);
  await p.waitForLog((l) => l['msg'] === 'server started');
  return { p, base: `http://127.0.0.1:${port}` };
}
const infer = (base: string, fault?: string) => post(`${base}/v2/models/faults/infer`, BODY, fault === undefined ? {} : { 'x-fault': fault });
const logLines = (p: CliProcess) =>
  p
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{'));
const loadedCount = (p: CliProcess) => logLines(p).filter((l) => JSON.parse(l).msg === 'model loaded').length;

async function stop(p: CliProcess): Promise<void> {
  p.child.kill('SIGTERM');
  expect(await p.exited).toBe(0);
}

describe('main-thread mode', () => {
  it('a stray rejected promise: one bounded JSON log line naming the model, and the server serves on', async () => {
    const { p, base } = await start();
    try {
      expect((await infer(base, 'reject')).status).toBe(200);
      const line = await p.waitForLog((l) => l['msg'] === 'unhandled promise rejection; serving on');
      expect(line['model']).toBe('faults');
      expect((line['err'] as { message: string }).message).toMatch(/^stray r+\.\.\. \(\d+ more characters\)$/);
      expect(JSON.stringify(line).length).toBeLessThan(16_384);
      const again = await infer(base);
      expect(again.status).toBe(200);
      expect(again.headers.get('x-thread')).toBe('main');
      expect((await get(`${base}/v2/health/live`)).status).toBe(200);
      expect(loadedCount(p)).toBe(1);
    } finally {
      await stop(p);
    }
  });

  it('an exception thrown later from a callback a hook started fails that model and reloads it; the server serves on', async () => {
    const { p, base } = await start();
    try {
      expect((await infer(base, 'throw-later')).status).toBe(200);
      const line = await p.waitForLog((l) => l['msg'] === 'uncaught exception in a custom model; failing and reloading it');
      expect(line['model']).toBe('faults');
      await p.waitForLog((l) => l['msg'] === 'model failed; reloading');
      for (let i = 0; i < 400 && loadedCount(p) < 2; i++) await new Promise((r) => setTimeout(r, 50));
      expect(loadedCount(p)).toBe(2);
      expect((await infer(base)).status).toBe(200);
      expect((await get(`${base}/v2/health/live`)).status).toBe(200);
    } finally {
      await stop(p);
    }
  });

  it('an uncaught exception no model owns is a fatal JSON line, then a drained shutdown with exit 1', async () => {
    const { p, base } = await start();
    expect((await infer(base, 'escape')).status).toBe(200);
    const line = await p.waitForLog((l) => l['msg'] === 'uncaught exception; shutting down');
    expect(line['level']).toBe(60);
    expect(line['model']).toBeUndefined();
    expect(await p.exited).toBe(1);
    // Nothing but JSON lines: no raw stack on stderr.
    expect(
      p
        .output()
        .split('\n')
        .filter((l) => l !== '' && !l.startsWith('{')),
    ).toEqual([]);
  });

  it('user errors stay bounded: a 10 MB message, a thrown object without a prototype', async () => {
    const { p, base } = await start();
    try {
      const huge = await infer(base, 'huge');
      expect(huge.text.length).toBeLessThan(8192);
      expectError(huge, 500, /^Model faults failed: Error : h{4096}\.\.\. \(9995904 more characters\)$/);
      const logged = await p.waitForLog((l) => l['msg'] === 'custom model hook failed');
      expect(JSON.stringify(logged).length).toBeLessThan(16_384);
      expectError(await infer(base, 'null-proto'), 500, /^Model faults failed: Error : a thrown object that is not an Error$/);
      expect(p.output().length).toBeLessThan(65_536);
      expect((await infer(base)).status).toBe(200);
    } finally {
      await stop(p);
    }
  });
});

describe('worker mode (--model_module_worker)', () => {
  it('a stray rejected promise is logged and the thread serves on: no reload', async () => {
    const { p, base } = await start(['--model_module_worker']);
    try {
      expect((await infer(base, 'reject')).status).toBe(200);
      const line = await p.waitForLog((l) => l['msg'] === 'unhandled promise rejection; serving on');
      expect(line['model']).toBe('faults');
      const again = await infer(base);
      expect(again.status).toBe(200);
      expect(again.headers.get('x-thread')).toBe('worker');
      expect(logLines(p).filter((l) => JSON.parse(l).msg === 'model failed; reloading')).toEqual([]);
      expect(loadedCount(p)).toBe(1);
    } finally {
      await stop(p);
    }
  });
});

/**
 * Requests that onnxruntime cannot run (#27 item 10), on real sessions:
 * - two inputs whose dimension the model names alike (add_sub: INPUT0, INPUT1 [batch,16])
 *   given different sizes ([2,16] + [3,16]) are the client's mistake: 400 / INVALID_ARGUMENT
 *   naming both, found before the graph runs (symbolic-dims.ts), not a 500;
 * - a failure only the graph finds (add_free_dims: the dims have different names) stays a
 *   500 from onnxruntime, and onnxruntime's own text line never reaches the process's
 *   output: everything the server writes is JSON (native-log.ts).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync, closeSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { grpcClient, grpcError } from '../../../test/grpc/client.js';
import { post } from '../../../test/helpers/http.js';
import { CLI } from '../../../test/helpers/process.js';
import { ROOT, type TestServer, makeRepository, startServer } from '../../../test/helpers/server.js';
import { tiedToParent } from '../../../test/helpers/tied-process.js';

const rows = (n: number) => Array.from({ length: n }, () => new Array<number>(16).fill(1));
const body = (a: number, b: number) => ({
  inputs: [
    { name: 'INPUT0', datatype: 'FP32', shape: [a, 16], data: rows(a) },
    { name: 'INPUT1', datatype: 'FP32', shape: [b, 16], data: rows(b) },
  ],
});
const grpcInputs = (a: number, b: number) => [
  { name: 'INPUT0', datatype: 'FP32', shape: [String(a), '16'], contents: { fp32_contents: rows(a).flat() } },
  { name: 'INPUT1', datatype: 'FP32', shape: [String(b), '16'], contents: { fp32_contents: rows(b).flat() } },
];

let t: TestServer;
let repo: ReturnType<typeof makeRepository>;
beforeAll(async () => {
  repo = makeRepository({ a: 'add_sub', f: 'add_free_dims' });
  t = await startServer(['--model_repository', repo.dir, '--inline_max_us', '0'], { grpc: true });
});
afterAll(async () => {
  await t.close();
  repo.cleanup();
});

const MISMATCH = "input 'INPUT1' has 3 along dimension 'batch' (axis 0) but input 'INPUT0' has 2 (axis 0): the model gives them one size";

it('inputs disagreeing on a dimension the model names alike: 400 over REST, INVALID_ARGUMENT over gRPC; agreeing: 200', async () => {
  const r = await post(`${t.url}/v2/models/a/infer`, body(2, 3));
  expect(r.status).toBe(400);
  expect(JSON.parse(r.text)).toEqual({ error: MISMATCH });
  const c = grpcClient(t.grpcAddress as string);
  try {
    const err = await grpcError(c.infer({ model_name: 'a', inputs: grpcInputs(2, 3) }));
    expect(err.code).toBe(3);
    expect(err.details).toBe(MISMATCH);
  } finally {
    c.close();
  }
  expect((await post(`${t.url}/v2/models/a/infer`, body(3, 3))).status).toBe(200);
});

it("a failure only the graph finds is onnxruntime's 500, without its source paths", async () => {
  const r = await post(`${t.url}/v2/models/f/infer`, body(2, 3));
  expect(r.status).toBe(500);
  expect(JSON.parse(r.text)).toEqual({ error: expect.stringContaining('Attempting to broadcast an axis by a dimension other than 1') });
  expect(r.text).not.toMatch(/onnxruntime_src|\.h:\d+|\.cc:\d+/);
  expect((await post(`${t.url}/v2/models/f/infer`, body(2, 2))).status).toBe(200);
});

it("onnxruntime's own error line stays off the process's output: every line the server writes is JSON", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'kserve-ts-ortlog-'));
  const file = path.join(dir, 'out.log');
  const fd = openSync(file, 'w');
  const [cmd, argv] = tiedToParent(process.execPath, [
    CLI,
    'serve',
    '--model_repository',
    repo.dir,
    '--http_host',
    '127.0.0.1',
    '--http_port',
    '0',
    '--enable_grpc',
    'false',
    '--inline_max_us',
    '0',
  ]);
  // stdout and stderr into one file: everything the process writes, in order, read after it exits.
  const child = spawn(cmd, argv, { cwd: ROOT, stdio: ['ignore', fd, fd] });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  try {
    let port = 0;
    for (let i = 0; i < 300 && port === 0; i++) {
      const m = /Server listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(readFileSync(file, 'utf8'));
      if (m && readFileSync(file, 'utf8').includes('"server started"')) port = Number(m[1]);
      else await new Promise((r) => setTimeout(r, 100));
    }
    expect(port).toBeGreaterThan(0);
    expect((await post(`http://127.0.0.1:${port}/v2/models/f/infer`, body(2, 3))).status).toBe(500);
  } finally {
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    closeSync(fd);
  }
  const lines = readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '');
  rmSync(dir, { recursive: true, force: true });
  expect(lines.some((l) => l.includes('"request failed"'))).toBe(true);
  expect(lines.filter((l) => !l.startsWith('{') || l.includes('\u001b'))).toEqual([]);
});

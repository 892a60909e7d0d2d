/**
 * Repository polling (`--repository_poll_secs`) on a real server while a bounded client
 * loop (REST and gRPC on loopback, bounded in count and time) sends requests to the default
 * version: a version folder added loads and answers, config.pbtxt changes (a label moved)
 * take effect, removed version folders unload, a model folder added or removed loads or
 * unloads, and not one request of the loop fails. Folders come and go by rename, as an
 * operator should do it (docs/model-repository.md): a poll never sees half a copy.
 */
import { cpSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type GrpcTestClient, grpcClient } from '../../test/grpc/client.js';
import { get, json, post } from '../../test/helpers/http.js';
import { ModelGate } from '../../test/helpers/model-gate.js';
import { type TestServer, fixture, makeRepository, startServer } from '../../test/helpers/server.js';
import { waitFor } from '../../test/helpers/wait-for.js';

const MAX_REQUESTS = 20_000;
const MAX_LOOP_MS = 120_000;
/** What each version answers for input 4: versions 1 and 2 are identity, 3 doubles. */
const EXPECTED: Record<string, number> = { '1': 4, '2': 4, '3': 8 };

let t: TestServer;
let client: GrpcTestClient;
let repo: ReturnType<typeof makeRepository>;
let staging: string;
beforeAll(async () => {
  repo = makeRepository({
    m: { versions: { '1': 'identity_fp32', '2': 'identity_fp32' }, config: 'version_labels { key: "canary" value: 2 }\n' },
    other: 'identity_fp32',
  });
  staging = mkdtempSync(path.join(tmpdir(), 'kserve-ts-poll-staging-'));
  t = await startServer(['--model_repository', repo.dir, '--repository_poll_secs', '1'], { grpc: true });
  client = grpcClient(t.grpcAddress as string);
});
afterAll(async () => {
  client.close();
  await t.close();
  repo.cleanup();
  rmSync(staging, { recursive: true, force: true });
});

/** Moves a folder with `fixture` as its model.onnx into `dest`, whole. */
function addFolder(dest: string, model: string): void {
  const dir = mkdtempSync(path.join(staging, 'add-'));
  cpSync(fixture(model), path.join(dir, 'model.onnx'));
  renameSync(dir, dest);
}

/** Moves `dir` out of the repository, whole. */
function removeFolder(dir: string): void {
  renameSync(dir, path.join(mkdtempSync(path.join(staging, 'gone-')), 'x'));
}

const status = async (p: string) => (await get(`${t.url}${p}`)).status;

interface Answer {
  readonly seq: number;
  readonly version: string;
}

/** The bounded client loop: `workers` callers alternating REST and gRPC infers on the default version until stopped. */
function clientLoop(workers: number) {
  let seq = 0;
  let stopped = false;
  const answers: Answer[] = [];
  const failures: string[] = [];
  const deadline = Date.now() + MAX_LOOP_MS;
  const one = async (i: number): Promise<void> => {
    const n = seq++;
    try {
      let version: string;
      let value: number | undefined;
      if (i % 2 === 0) {
        const r = await post(`${t.url}/v2/models/m/infer`, { inputs: [{ name: 'INPUT0', shape: [1, 1], datatype: 'FP32', data: [[4]] }] });
        if (r.status !== 200) throw new Error(`REST ${r.status} ${r.text}`);
        const body = json(r) as { model_version: string; outputs: Array<{ data: number[] }> };
        version = body.model_version;
        value = body.outputs[0]?.data[0];
      } else {
        const r = await client.infer({ model_name: 'm', inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 1], contents: { fp32_contents: [4] } }] });
        version = r.model_version;
        value = r.outputs[0]?.contents?.fp32_contents?.[0];
      }
      if (value !== EXPECTED[version]) throw new Error(`version ${version} answered ${value}`);
      answers.push({ seq: n, version });
    } catch (e) {
      failures.push(`request ${n}: ${e instanceof Error ? e.message : String(e)}`);
    }
  };
  const worker = async (w: number) => {
    for (let i = w; !stopped && seq < MAX_REQUESTS && Date.now() < deadline; i++) await one(i);
  };
  const done = Promise.all(Array.from({ length: workers }, (_, w) => worker(w)));
  return {
    answers,
    failures,
    /** Sequence number the next request will get: answers after it were sent after now. */
    mark: () => seq,
    /** Waits until a request sent after `mark` was answered by `version`. */
    answeredBy: (version: string, mark: number) =>
      waitFor(() => answers.some((a) => a.seq >= mark && a.version === version), { description: `an answer from version ${version} after request ${mark}` }),
    stop: async () => {
      stopped = true;
      await done;
    },
  };
}

it('new, changed and removed folders load, reload and unload under a client loop with zero failed requests', async () => {
  const mDir = path.join(repo.dir, 'm');
  const loop = clientLoop(3);
  try {
    await loop.answeredBy('2', 0);

    // A new version folder loads and becomes the default.
    let mark = loop.mark();
    addFolder(path.join(mDir, '3'), 'scale2_fp32');
    await waitFor(() => status('/v2/models/m/versions/3/ready'), { until: (s) => s === 200, description: 'version 3 ready' });
    await loop.answeredBy('3', mark);
    expect(json(await get(`${t.url}/v2/models/m`))).toMatchObject({ versions: ['1', '2', '3'] });

    // A changed config.pbtxt reloads the model: the label moves.
    const moved = path.join(staging, 'config.pbtxt');
    writeFileSync(moved, 'version_labels { key: "canary" value: 3 }\n');
    renameSync(moved, path.join(mDir, 'config.pbtxt'));
    const canary = () => post(`${t.url}/v2/models/m/versions/canary/infer`, { inputs: [{ name: 'INPUT0', shape: [1, 1], datatype: 'FP32', data: [[4]] }] });
    await waitFor(async () => (json(await canary()) as { model_version?: string }).model_version, { until: (v) => v === '3', description: 'canary to answer as version 3' });

    // Removed version folders unload; the default goes back to 2 and the label to a gone version is 404.
    mark = loop.mark();
    removeFolder(path.join(mDir, '3'));
    removeFolder(path.join(mDir, '1'));
    await waitFor(async () => [await status('/v2/models/m/versions/3/ready'), await status('/v2/models/m/versions/1/ready')], {
      until: (s) => s[0] === 404 && s[1] === 404,
      description: 'versions 3 and 1 gone',
    });
    await loop.answeredBy('2', mark);
    expect(json(await get(`${t.url}/v2/models/m`))).toMatchObject({ versions: ['2'] });
    expect((await canary()).status).toBe(404);

    // A model unloaded by request stays unloaded; a new model folder loads, a removed one unloads.
    expect((await post(`${t.url}/v2/repository/models/other/unload`)).status).toBe(200);
    mkdirSync(path.join(staging, 'late'));
    cpSync(fixture('scale2_fp32'), path.join(staging, 'late', 'model.onnx'));
    renameSync(path.join(staging, 'late'), path.join(repo.dir, 'late'));
    await waitFor(() => status('/v2/models/late/ready'), { until: (s) => s === 200, description: 'model late ready' });
    expect(await status('/v2/models/other/ready')).toBe(404);
    removeFolder(path.join(repo.dir, 'late'));
    await waitFor(() => status('/v2/models/late/ready'), { until: (s) => s === 404, description: 'model late gone' });
  } finally {
    await loop.stop();
  }
  console.log(`repository poll: ${loop.answers.length} answers, ${loop.failures.length} failures`);
  expect(loop.failures).toEqual([]);
  expect(loop.answers.length).toBeGreaterThan(0);
}, 180_000);

it('a removed version finishes the request it runs; the versions kept keep serving after it is freed', async () => {
  const gate = new ModelGate();
  const own = makeRepository({ g: { versions: { '2': 'identity_fp32', '3': 'scale2_fp32' } } });
  const server = await startServer(['--model_repository', own.dir, '--repository_poll_secs', '1'], { backends: gate.backends() });
  const infer = (p: string) => post(`${server.url}${p}`, { inputs: [{ name: 'INPUT0', shape: [1, 1], datatype: 'FP32', data: [[4]] }] });
  try {
    gate.hold();
    const running = infer('/v2/models/g/versions/3/infer');
    await gate.untilHeld(1);
    removeFolder(path.join(own.dir, 'g', '3'));
    await waitFor(async () => (await get(`${server.url}/v2/models/g/versions/3/ready`)).status, { until: (s) => s === 404, description: 'version 3 gone for new requests' });
    gate.release();
    const r = await running;
    expect(r.status, r.text).toBe(200);
    expect(json(r)).toMatchObject({ model_version: '3', outputs: [{ data: [8] }] });
    // The old generation drains and lets go of its instances: version 2, kept by the new one, still runs.
    for (const p of ['/v2/models/g/infer', '/v2/models/g/versions/2/infer']) {
      const after = await infer(p);
      expect(after.status, after.text).toBe(200);
      expect(json(after)).toMatchObject({ model_version: '2', outputs: [{ data: [4] }] });
    }
  } finally {
    gate.release();
    await server.close();
    own.cleanup();
  }
});

/**
 * The in-server model puller (`serve --model_config_file`) against a real loopback HTTP
 * store and a ConfigMap folder updated as kubelet updates one: models added, served, changed
 * under load without a failed request, removed (unloaded, files deleted), failures reported
 * per model while the others serve, a malformed file ignored, memory refused with the numbers.
 * Every step waits on what the server shows (index, answers, metrics), never on time.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get, json, metricValue, post } from '../helpers/http.js';
import { fixture } from '../helpers/server.js';
import { waitFor } from '../helpers/wait-for.js';
import { ConfigMapDir, FileServer, type ModelEntry, type PullerServer, startPullerServer } from './helpers.js';

const infer = (url: string, model: string) => post(`${url}/v2/models/${model}/infer`, { inputs: [{ name: 'INPUT0', shape: [1, 2], datatype: 'FP32', data: [[1, 2]] }] });
const output = (r: { text: string }) => (JSON.parse(r.text) as { outputs: Array<{ data: number[] }> }).outputs[0]?.data;
type IndexEntry = { name: string; state: string; reason?: string };
const index = async (url: string) => json(await post(`${url}/v2/repository/index`)) as IndexEntry[];
const entry = (store: FileServer, name: string, file: string, memory?: string): ModelEntry => ({
  modelName: name,
  modelSpec: { storageUri: `${store.url}${file}`, framework: 'onnx', ...(memory !== undefined ? { memory } : {}) },
});

describe('the model puller over HTTP storage', () => {
  const store = new FileServer();
  const cm = new ConfigMapDir();
  let t: PullerServer;
  let models: ModelEntry[];

  beforeAll(async () => {
    await store.start();
    store.files.set('/m/identity/model.onnx', readFileSync(fixture('identity_fp32')));
    store.files.set('/m/scale2/model.onnx', readFileSync(fixture('scale2_fp32')));
    store.files.set('/m/identity-copy/model.onnx', readFileSync(fixture('identity_fp32')));
    store.files.set('/m/corrupt/model.onnx', Buffer.from('this is not an ONNX model'));
    models = [
      entry(store, 'alpha', '/m/identity/model.onnx', '10Mi'),
      entry(store, 'beta', '/m/identity-copy/model.onnx', '10Mi'),
      entry(store, 'gamma', '/m/scale2/model.onnx', '10Mi'),
    ];
    cm.write(models);
    t = await startPullerServer(cm.file, ['--model_memory_limit', '64Mi']);
  });
  afterAll(async () => {
    await t?.close();
    await store.close();
    cm.cleanup();
  });

  it('is ready once the listed models have loaded, and serves each of the three', async () => {
    await waitFor(async () => (await get(`${t.url}/v2/health/ready`)).status === 200, { description: 'server ready' });
    expect(output(await infer(t.url, 'alpha'))).toEqual([1, 2]);
    expect(output(await infer(t.url, 'beta'))).toEqual([1, 2]);
    expect(output(await infer(t.url, 'gamma'))).toEqual([2, 4]);
    // V1 too, as KServe's multi-model users call them.
    const v1 = await post(`${t.url}/v1/models/gamma:predict`, { instances: [[1, 2]] });
    expect(v1.status, v1.text).toBe(200);
    expect(json(v1)).toEqual({ predictions: [[2, 4]] });
    expect((await get(`${t.url}/v2/models/beta/ready`)).status).toBe(200);
    expect((await index(t.url)).map((e) => [e.name, e.state]).sort()).toEqual([
      ['alpha', 'READY'],
      ['beta', 'READY'],
      ['gamma', 'READY'],
    ]);
    // Each model in its own folder; no staging folder left.
    expect(readdirSync(t.modelDir).sort()).toEqual(['alpha', 'beta', 'gamma']);
  });

  it('swaps in a changed storageUri with a reload: no request fails and the new model answers after', async () => {
    let stop = false;
    const statuses: number[] = [];
    const answers: string[] = [];
    // Bounded by the waits below: it stops when the new answer is seen, or when a wait gives up.
    const loop = (async () => {
      while (!stop) {
        const r = await infer(t.url, 'beta');
        statuses.push(r.status);
        if (r.status === 200) answers.push(JSON.stringify(output(r)));
      }
    })();
    try {
      await waitFor(() => answers.length > 0, { description: 'the client loop to be served' });
      models = models.map((m) => (m.modelName === 'beta' ? entry(store, 'beta', '/m/scale2/model.onnx', '10Mi') : m));
      cm.write(models);
      await waitFor(() => answers.at(-1) === '[2,4]', { description: 'beta to answer as the new model' });
    } finally {
      stop = true;
      await loop;
    }
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    expect(answers[0]).toBe('[1,2]');
    expect(answers.at(-1)).toBe('[2,4]');
    // Old answers only before the first new one: the swap is one step.
    const firstNew = answers.indexOf('[2,4]');
    expect(answers.slice(firstNew).every((a) => a === '[2,4]')).toBe(true);
    expect(output(await infer(t.url, 'beta'))).toEqual([2, 4]);
    await waitFor(() => readdirSync(t.modelDir).sort().join(), { until: (v) => v === 'alpha,beta,gamma', description: 'the replaced files gone' });
  });

  it('removes a model no longer listed: unloaded (404) and its folder deleted', async () => {
    models = models.filter((m) => m.modelName !== 'gamma');
    cm.write(models);
    await waitFor(async () => (await infer(t.url, 'gamma')).status, { until: (s) => s === 404, description: 'gamma to be gone' });
    await waitFor(() => !existsSync(path.join(t.modelDir, 'gamma')), { description: 'gamma folder deleted' });
    expect((await index(t.url)).map((e) => e.name).sort()).toEqual(['alpha', 'beta']);
    expect(output(await infer(t.url, 'alpha'))).toEqual([1, 2]);
  });

  it('reports a model whose download fails and one that fails to load, in the index and the metric, while the others serve', async () => {
    models = [...models, entry(store, 'missing', '/m/nowhere/model.onnx', '1Mi'), entry(store, 'corrupt', '/m/corrupt/model.onnx', '1Mi')];
    cm.write(models);
    const states = await waitFor(() => index(t.url), {
      until: (ix) => ['missing', 'corrupt'].every((n) => ix.find((e) => e.name === n)?.state === 'UNAVAILABLE'),
      description: 'both failures in the index',
    });
    const reason = (n: string) => states.find((e) => e.name === n)?.reason ?? '';
    expect(reason('missing')).toContain(`Failed to download ${store.url}/m/nowhere/model.onnx`);
    expect(reason('missing')).toMatch(/404|not found/i);
    expect(reason('corrupt')).toContain(`Failed to load the model downloaded from ${store.url}/m/corrupt/model.onnx: `);
    expect(reason('corrupt')).not.toContain('is not ready');
    const metrics = (await get(`${t.url}/metrics`)).text;
    expect(metricValue(metrics, 'kserve_model_pull_failures_total', { model_name: 'missing', stage: 'download' })).toBe(1);
    expect(metricValue(metrics, 'kserve_model_pull_failures_total', { model_name: 'corrupt', stage: 'load' })).toBe(1);
    // Their requests say why; the others are untouched.
    const r = await infer(t.url, 'missing');
    expect(r.status).toBe(503);
    expect(r.text).toContain('Failed to download');
    expect(output(await infer(t.url, 'alpha'))).toEqual([1, 2]);
    expect(output(await infer(t.url, 'beta'))).toEqual([2, 4]);
    expect((await get(`${t.url}/v2/health/ready`)).status).toBe(200);
  });

  it('refuses a model whose declared memory does not fit what is left, naming the numbers; the others still load', async () => {
    // Held: alpha 10Mi + beta 10Mi = 20Mi of 64Mi; corrupt and missing hold nothing.
    models = [...models, entry(store, 'big', '/m/identity/model.onnx', '50Mi'), entry(store, 'small', '/m/identity/model.onnx', '20Mi')];
    cm.write(models);
    const ix = await waitFor(() => index(t.url), {
      until: (x) => x.find((e) => e.name === 'big')?.state === 'UNAVAILABLE' && x.find((e) => e.name === 'small')?.state === 'READY',
      description: 'big refused and small loaded',
    });
    expect(ix.find((e) => e.name === 'big')?.reason).toBe(
      'Not loaded: model big declares memory 52428800 bytes (50Mi), more than the 46137344 bytes (44Mi) left of --model_memory_limit 67108864 bytes (64Mi) (20971520 bytes (20Mi) held by other models)',
    );
    expect(metricValue((await get(`${t.url}/metrics`)).text, 'kserve_model_pull_failures_total', { model_name: 'big', stage: 'memory' })).toBe(1);
    expect(existsSync(path.join(t.modelDir, 'big'))).toBe(false);
    expect(output(await infer(t.url, 'small'))).toEqual([1, 2]);
  });

  it('a change that fails to load keeps the loaded version serving, its files in place, until the change is withdrawn', async () => {
    const original = models;
    models = models.map((m) => (m.modelName === 'alpha' ? entry(store, 'alpha', '/m/corrupt/model.onnx', '10Mi') : m));
    cm.write(models);
    const ix = await waitFor(() => index(t.url), {
      until: (x) => (x.find((e) => e.name === 'alpha')?.reason ?? '').includes('/m/corrupt/model.onnx'),
      description: "alpha's failed change reported",
    });
    expect(ix.find((e) => e.name === 'alpha')?.state).toBe('READY');
    expect(output(await infer(t.url, 'alpha'))).toEqual([1, 2]);
    expect(readFileSync(path.join(t.modelDir, 'alpha/model.onnx'))).toEqual(readFileSync(fixture('identity_fp32')));
    models = original;
    cm.write(models);
    await waitFor(() => index(t.url), { until: (x) => x.find((e) => e.name === 'alpha')?.reason === undefined, description: 'the reason dropped' });
    expect(output(await infer(t.url, 'alpha'))).toEqual([1, 2]);
    // Load request: the files in place are the serving ones.
    expect((await post(`${t.url}/v2/repository/models/alpha/load`)).status).toBe(200);
    expect(output(await infer(t.url, 'alpha'))).toEqual([1, 2]);
  });

  it('keeps the current set when the file is malformed, and takes the next valid one', async () => {
    const before = (await index(t.url)).map((e) => [e.name, e.state]).sort();
    for (const bad of [
      '[{"modelName": "alpha", ',
      '{"modelName": "alpha"}',
      JSON.stringify([models[0], models[0]]),
      JSON.stringify([{ modelName: '../etc', modelSpec: { storageUri: 'x' } }]),
    ]) {
      const seen = metricValue((await get(`${t.url}/metrics`)).text, 'kserve_model_config_errors_total', {});
      cm.writeRaw(bad);
      await waitFor(async () => metricValue((await get(`${t.url}/metrics`)).text, 'kserve_model_config_errors_total', {}), {
        until: (v) => v === seen + 1,
        description: `the malformed file ${bad} refused`,
      });
      expect((await index(t.url)).map((e) => [e.name, e.state]).sort()).toEqual(before);
    }
    expect(output(await infer(t.url, 'alpha'))).toEqual([1, 2]);
    // The file briefly missing (..data gone) is not an empty set either.
    cm.hide();
    cm.write(models.filter((m) => m.modelName !== 'small'));
    await waitFor(async () => (await infer(t.url, 'small')).status, { until: (s) => s === 404, description: 'small removed by the next valid file' });
    expect(output(await infer(t.url, 'alpha'))).toEqual([1, 2]);
  });

  it('downloads each model once: an unchanged entry is not pulled again when the file changes', () => {
    // beta's first file: pulled once, though the file changed six times after.
    expect(store.requests.get('/m/identity-copy/model.onnx')).toBe(1);
    // missing: tried once, its unchanged entry not retried at every later file version.
    expect(store.requests.get('/m/nowhere/model.onnx')).toBe(1);
  });
});

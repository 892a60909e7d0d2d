/**
 * Triton's `load_model(name, config=...)`: a load request whose `config` parameter (Triton's
 * JSON model configuration) replaces config.pbtxt for that load, over REST and gRPC on a real
 * server. The effective configuration then reports the override; a bad override is refused
 * (400 / INVALID_ARGUMENT) and the model keeps serving as it was; a later load without one,
 * or a poll that finds the folder changed, reads the folder's config.pbtxt again.
 */
import { cpSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { grpcError } from '../../test/grpc/client.js';
import { useGrpcFixture } from '../../test/helpers/grpc-fixture.js';
import { expectError, get, json, post } from '../../test/helpers/http.js';
import { fixture } from '../../test/helpers/server.js';
import { waitFor } from '../../test/helpers/wait-for.js';

const FOLDER_CONFIG = 'max_batch_size: 0\ninstance_group [ { count: 1 kind: KIND_CPU } ]';

const OVERRIDE = {
  max_batch_size: 4,
  instance_group: [{ count: 2, kind: 'KIND_CPU' }],
  dynamic_batching: { max_queue_delay_microseconds: 50 },
  parameters: { intra_op_thread_count: { string_value: '1' } },
};

describe('load with a config override', () => {
  const f = useGrpcFixture({ m: { file: 'identity_fp32', config: FOLDER_CONFIG }, plain: 'identity_fp32' });
  const url = (path: string) => `${f.server.url}${path}`;
  const config = async (name = 'm') => {
    const r = await get(url(`/v2/models/${name}/config`));
    expect(r.status, r.text).toBe(200);
    return json(r) as { max_batch_size: number; instance_group: unknown[]; input: Array<{ dims: number[] }>; dynamic_batching?: unknown; parameters: unknown };
  };
  const load = (body?: object, name = 'm') => post(url(`/v2/repository/models/${name}/load`), body);
  const loadWith = (doc: object | string, name = 'm') => load({ parameters: { config: typeof doc === 'string' ? doc : JSON.stringify(doc) } }, name);
  const infer = async (name = 'm') => {
    const r = await post(url(`/v2/models/${name}/infer`), { inputs: [{ name: 'INPUT0', shape: [1, 2], datatype: 'FP32', data: [3, 4] }] });
    expect(r.status, r.text).toBe(200);
    return (json(r) as { outputs: Array<{ data: number[] }> }).outputs[0]?.data;
  };
  const grpcLoad = (name: string, parameters: Record<string, object>) => f.client.call('RepositoryModelLoad', { triton_model_name: name, parameters });

  it('REST: the override replaces config.pbtxt, the config endpoint reports it, and the model answers', async () => {
    expect((await config()).max_batch_size).toBe(0);
    const r = await loadWith(OVERRIDE);
    expect(r.status, r.text).toBe(200);
    expect(json(r)).toEqual({ name: 'm', load: true });
    expect(await config()).toMatchObject({
      max_batch_size: 4,
      input: [{ dims: [-1] }],
      dynamic_batching: { preferred_batch_size: [], max_queue_delay_microseconds: 50 },
      instance_group: [{ name: 'm_0', kind: 'KIND_CPU', count: 2 }],
      parameters: { intra_op_thread_count: { string_value: '1' } },
    });
    expect(await infer()).toEqual([3, 4]);
  });

  it('REST: a load without an override reads config.pbtxt again; an empty body or {} is a plain load', async () => {
    for (const body of [undefined, {}, { parameters: {} }]) {
      expect((await loadWith(OVERRIDE)).status).toBe(200);
      expect((await config()).max_batch_size).toBe(4);
      const r = await load(body);
      expect(r.status, r.text).toBe(200);
      expect(await config()).toMatchObject({ max_batch_size: 0, instance_group: [{ count: 1 }] });
    }
  });

  it("REST: GET config's own document loads back as an override (Triton's round trip)", async () => {
    const doc = { ...(await config('plain')), max_batch_size: 2 };
    expect((await loadWith(doc, 'plain')).status).toBe(200);
    expect(await config('plain')).toMatchObject({ max_batch_size: 2, input: [{ dims: [-1] }] });
    expect(await infer('plain')).toEqual([3, 4]);
  });

  it.each([
    ['not JSON', { parameters: { config: '{max_batch_size: 4' } }, /^The config override for model m is invalid: config is not JSON: /],
    ['not an object', { parameters: { config: '[4]' } }, 'The config override for model m is invalid: config must be a JSON object (a model configuration as Triton writes it)'],
    ['an empty string', { parameters: { config: '' } }, "Load parameter 'config' must be a model configuration as a JSON string."],
    ['a negative max_batch_size', { parameters: { config: '{"max_batch_size": -1}' } }, 'The config override for model m is invalid: max_batch_size must be >= 0'],
    [
      'an unknown data type',
      { parameters: { config: '{"input": [{"name": "INPUT0", "data_type": "TYPE_NOPE", "dims": [2]}]}' } },
      /input 'INPUT0' has unknown data_type TYPE_NOPE/,
    ],
    [
      'an input the model does not have',
      { parameters: { config: '{"input": [{"name": "NOPE", "data_type": "TYPE_FP32", "dims": [-1, -1]}]}' } },
      "Model m was not loaded with the config override: the config override declares input 'NOPE' but model m has inputs [INPUT0]",
    ],
    ['a backend nobody registered', { parameters: { config: '{"backend": "nope"}' } }, /^Model m was not loaded with the config override: unknown backend 'nope'/],
    [
      'model files (file: parameters)',
      { parameters: { config: '{}', 'file:1/model.onnx': 'AAAA' } },
      /^Load parameters 'file:1\/model.onnx' carry model files, which kserve-ts does not take/,
    ],
    [
      'an unknown parameter',
      { parameters: { config: '{}', poll: true } },
      "Unknown load parameter(s) 'poll'; the load request takes 'config' (a model configuration as Triton's JSON).",
    ],
    ['a parameter that is an object', { parameters: { config: { max_batch_size: 4 } } }, /^Load parameter 'config' must be a string, number or boolean/],
    ['parameters that are not an object', { parameters: 'config' }, "The load request's 'parameters' must be a JSON object"],
  ])('REST: an override that is %s is refused with 400 and the model keeps serving as it was', async (_, body, message) => {
    expect((await loadWith(OVERRIDE)).status).toBe(200);
    expectError(await load(body), 400, message);
    expect(await config()).toMatchObject({ max_batch_size: 4, instance_group: [{ count: 2 }] });
    expect(await infer()).toEqual([3, 4]);
    expect(json(await get(url('/v2/models/m/ready')))).toEqual({ name: 'm', ready: true });
  });

  it('REST: a body that is not JSON is refused with 400', async () => {
    expectError(await post(url('/v2/repository/models/m/load'), 'config=1'), 400, /^The load request body is not JSON: /);
  });

  it('REST: an override for a model the repository does not have is 404', async () => {
    expectError(await loadWith(OVERRIDE, 'nope'), 404, 'Model with name nope does not exist.');
  });

  it('gRPC: parameters["config"].string_param replaces config.pbtxt; ModelConfig reports it', async () => {
    const doc = { max_batch_size: 3, instance_group: [{ count: 2, kind: 'KIND_CPU' }] };
    expect(await grpcLoad('m', { config: { string_param: JSON.stringify(doc) } })).toEqual({ model_name: 'm', isLoaded: true });
    const { config: c } = await f.client.call<{ config: { max_batch_size: number; instance_group: Array<{ count: number }> } }>('ModelConfig', { name: 'm' });
    expect([c.max_batch_size, c.instance_group.map((g) => g.count)]).toEqual([3, [2]]);
    expect(await infer()).toEqual([3, 4]);
  });

  it.each([
    ['a bad override', { config: { string_param: '{"max_batch_size": -1}' } }, 'The config override for model m is invalid: max_batch_size must be >= 0'],
    ['a config that is not a string', { config: { int64_param: '4' } }, "Load parameter 'config' must be a model configuration as a JSON string."],
    ['model files', { config: { string_param: '{}' }, 'file:1/model.onnx': { bytes_param: Buffer.from([1]) } }, /carry model files/],
  ])('gRPC: %s is INVALID_ARGUMENT and the model keeps serving as it was', async (_, parameters, message) => {
    expect(await grpcLoad('m', { config: { string_param: JSON.stringify(OVERRIDE) } })).toEqual({ model_name: 'm', isLoaded: true });
    const e = await grpcError(grpcLoad('m', parameters));
    expect(e.code).toBe(3);
    expect(e.details).toMatch(message);
    expect((await config()).max_batch_size).toBe(4);
    expect(await infer()).toEqual([3, 4]);
  });
});

describe('a config override under repository polling', () => {
  const f = useGrpcFixture({ m: { versions: { '1': 'identity_fp32' }, config: FOLDER_CONFIG } }, ['--repository_poll_secs', '1']);
  const config = async () => json(await get(`${f.server.url}/v2/models/m/config`)) as { max_batch_size: number };

  it('lasts while the folder is unchanged; a poll that finds it changed reloads from config.pbtxt', async () => {
    const r = await post(`${f.server.url}/v2/repository/models/m/load`, { parameters: { config: JSON.stringify({ max_batch_size: 2 }) } });
    expect(r.status, r.text).toBe(200);
    // Two polls or more pass over the unchanged folder: the override stays.
    await sleep(2500);
    expect((await config()).max_batch_size).toBe(2);
    // A version folder moved in whole, as an operator should (docs/model-repository.md).
    const staged = mkdtempSync(path.join(tmpdir(), 'kserve-ts-override-poll-'));
    try {
      mkdirSync(path.join(staged, '2'));
      cpSync(fixture('scale2_fp32'), path.join(staged, '2', 'model.onnx'));
      renameSync(path.join(staged, '2'), path.join(f.dir, 'm', '2'));
    } finally {
      rmSync(staged, { recursive: true, force: true });
    }
    const versions = async () => (json(await get(`${f.server.url}/v2/models/m`)) as { versions: string[] }).versions;
    await waitFor(versions, { until: (v) => v.length === 2, description: 'version 2 to load' });
    // Version 1 too: its files did not change, but the config it ran with did.
    for (const v of ['1', '2']) expect((json(await get(`${f.server.url}/v2/models/m/versions/${v}/config`)) as { max_batch_size: number }).max_batch_size, v).toBe(0);
  });
});

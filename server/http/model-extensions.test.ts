/**
 * Triton's model configuration extension over REST, on a real server: the configuration of
 * ONNX fixture models (declared by the model, and with config.pbtxt's batching).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, get, json } from '../../test/helpers/http.js';
import { type TestServer, makeRepository, startServer } from '../../test/helpers/server.js';

const BATCHED_CONFIG = `
max_batch_size: 8
input [ { name: "INPUT0" data_type: TYPE_FP32 dims: [ 16 ] }, { name: "INPUT1" data_type: TYPE_FP32 dims: [ 16 ] } ]
dynamic_batching { preferred_batch_size: [ 4, 8 ] max_queue_delay_microseconds: 100 }
parameters { key: "intra_op_thread_count" value { string_value: "1" } }
`;

describe('model configuration extension (REST)', () => {
  let t: TestServer;
  let repo: ReturnType<typeof makeRepository>;
  beforeAll(async () => {
    repo = makeRepository({
      m: { versions: { '1': 'identity_fp32', '2': 'scale2_fp32' } },
      b: { file: 'add_sub', config: BATCHED_CONFIG },
    });
    t = await startServer(['--model_repository', repo.dir]);
  });
  afterAll(async () => {
    await t.close();
    repo.cleanup();
  });

  it('server metadata advertises the extension by its Triton name', async () => {
    expect(json(await get(`${t.url}/v2`))).toMatchObject({ extensions: expect.arrayContaining(['model_configuration']) as unknown });
  });

  it.each(['/v2/models/m/config', '/v2/models/m/versions/1/config'])('%s: the inputs and outputs the ONNX model declares, as Triton writes them', async (path) => {
    const r = await get(`${t.url}${path}`);
    expect(r.status, r.text).toBe(200);
    expect(json(r)).toEqual({
      name: 'm',
      platform: 'onnxruntime_onnx',
      backend: 'onnxruntime',
      version_policy: { all: {} },
      max_batch_size: 0,
      input: [{ name: 'INPUT0', data_type: 'TYPE_FP32', dims: [-1, -1] }],
      output: [{ name: 'OUTPUT0', data_type: 'TYPE_FP32', dims: [-1, -1] }],
      instance_group: [{ name: 'm', kind: 'KIND_CPU', count: 1 }],
      parameters: {},
    });
  });

  it("config.pbtxt's batching: dims without the batch dimension, dynamic_batching and parameters", async () => {
    const r = await get(`${t.url}/v2/models/b/config`);
    expect(r.status, r.text).toBe(200);
    expect(json(r)).toMatchObject({
      name: 'b',
      max_batch_size: 8,
      input: [
        { name: 'INPUT0', data_type: 'TYPE_FP32', dims: [16] },
        { name: 'INPUT1', data_type: 'TYPE_FP32', dims: [16] },
      ],
      output: [
        { name: 'OUTPUT0', data_type: 'TYPE_FP32', dims: [16] },
        { name: 'OUTPUT1', data_type: 'TYPE_FP32', dims: [16] },
      ],
      dynamic_batching: { preferred_batch_size: [4, 8], max_queue_delay_microseconds: 100 },
      parameters: { intra_op_thread_count: { string_value: '1' } },
    });
  });

  it.each([
    ['/v2/models/nope/config', /^Model with name nope does not exist\.$/],
    ['/v2/models/m/versions/9/config', /^Model with name m and version 9 does not exist\.$/],
  ])('%s: unknown model or version is 404', async (path, message) => {
    expectError(await get(`${t.url}${path}`), 404, message);
  });
});

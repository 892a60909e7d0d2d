/**
 * TF Serving's version labels (config.pbtxt `version_labels`) wherever a version is given:
 * REST `/v2/models/{m}/versions/{label}/...` and gRPC `model_version`, on a real server. A
 * label that names no loaded version (left out by the policy, or without a folder) is the
 * usual unknown-version 404 / NOT_FOUND.
 */
import { describe, expect, it } from 'vitest';
import { grpcError } from '../../test/grpc/client.js';
import { useGrpcFixture } from '../../test/helpers/grpc-fixture.js';
import { expectError, get, json, post } from '../../test/helpers/http.js';

const config = [
  'version_policy { latest { num_versions: 2 } }',
  'version_labels { key: "stable" value: 2 }',
  'version_labels { key: "canary" value: 3 }',
  'version_labels { key: "retired" value: 1 }', // a folder the policy leaves out
  'version_labels { key: "ghost" value: 9 }', // no folder at all
].join('\n');

describe('version labels', () => {
  const f = useGrpcFixture({ m: { versions: { '1': 'identity_fp32', '2': 'identity_fp32', '3': 'scale2_fp32' }, config } });
  const body = { inputs: [{ name: 'INPUT0', shape: [1, 1], datatype: 'FP32', data: [[4]] }] };
  const grpcInfer = (version: string) =>
    f.client.infer({ model_name: 'm', model_version: version, inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 1], contents: { fp32_contents: [4] } }] });

  it.each([
    ['stable', '2', [4]],
    ['canary', '3', [8]],
  ])('%s resolves to version %s over REST', async (label, version, data) => {
    const r = await post(`${f.server.url}/v2/models/m/versions/${label}/infer`, body);
    expect(r.status, r.text).toBe(200);
    expect(json(r)).toMatchObject({ model_name: 'm', model_version: version, outputs: [{ data }] });
    expect((await get(`${f.server.url}/v2/models/m/versions/${label}/ready`)).text).toBe('{"name":"m","ready":true}');
    expect(json(await get(`${f.server.url}/v2/models/m/versions/${label}`))).toMatchObject({ name: 'm', versions: ['2', '3'] });
  });

  it.each([
    ['stable', '2', [4]],
    ['canary', '3', [8]],
  ])('%s resolves to version %s over gRPC', async (label, version, data) => {
    const r = await grpcInfer(label);
    expect(r).toMatchObject({ model_name: 'm', model_version: version });
    expect(r.outputs[0]?.contents?.fp32_contents).toEqual(data);
    expect(await f.client.call('ModelReady', { name: 'm', version: label })).toEqual({ ready: true });
    expect(await f.client.call('ModelMetadata', { name: 'm', version: label })).toMatchObject({ name: 'm', versions: ['2', '3'] });
  });

  it.each(['retired', 'ghost', 'nolabel'])('%s names no loaded version: 404 and NOT_FOUND', async (label) => {
    const message = `Model with name m and version ${label} does not exist.`;
    expectError(await post(`${f.server.url}/v2/models/m/versions/${label}/infer`, body), 404, message);
    expectError(await get(`${f.server.url}/v2/models/m/versions/${label}/ready`), 404, message);
    expectError(await get(`${f.server.url}/v2/models/m/versions/${label}`), 404, message);
    const e = await grpcError(grpcInfer(label));
    expect([e.code, e.details]).toEqual([5, message]);
    const ready = await grpcError(f.client.call('ModelReady', { name: 'm', version: label }));
    expect(ready.code).toBe(5);
  });
});

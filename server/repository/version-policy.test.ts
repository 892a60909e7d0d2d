/**
 * version_policy (Triton's latest / all / specific): the selection as a table, then a real
 * server whose models each use one policy, asked over REST and gRPC which versions it serves.
 */
import { describe, expect, it } from 'vitest';
import { grpcError } from '../../test/grpc/client.js';
import { useGrpcFixture } from '../../test/helpers/grpc-fixture.js';
import { expectError, get, json, post } from '../../test/helpers/http.js';
import type { VersionPolicy } from '../backend/model-config.js';
import { selectVersions } from './version-policy.js';

const folders = (...vs: string[]) => vs.map((v) => ({ version: v, dir: `/m/${v}` }));

describe('selectVersions', () => {
  it.each<[string, VersionPolicy | undefined, string[], string[], string[]]>([
    ['no policy: every version', undefined, ['1', '2', '3'], ['1', '2', '3'], []],
    ['all', { kind: 'all' }, ['1', '2', '3'], ['1', '2', '3'], []],
    ['latest 1', { kind: 'latest', numVersions: 1 }, ['1', '2', '10'], ['10'], []],
    ['latest 2', { kind: 'latest', numVersions: 2 }, ['1', '2', '3'], ['2', '3'], []],
    ['latest more than there are', { kind: 'latest', numVersions: 5 }, ['1', '2'], ['1', '2'], []],
    ['specific', { kind: 'specific', versions: ['1', '3'] }, ['1', '2', '3'], ['1', '3'], []],
    ['specific with a version not there', { kind: 'specific', versions: ['2', '7'] }, ['1', '2'], ['2'], ['7']],
    ['specific matches folder numbers, not spellings', { kind: 'specific', versions: ['1'] }, ['01', '2'], ['01'], []],
  ])('%s', (_what, policy, present, selected, missing) => {
    const r = selectVersions(folders(...present), policy);
    expect(r.selected.map((f) => f.version)).toEqual(selected);
    expect(r.missing).toEqual(missing);
  });

  it('an unversioned model is served whatever the policy', () => {
    const unversioned = [{ version: undefined, dir: '/m' }];
    expect(selectVersions(unversioned, { kind: 'specific', versions: ['3'] }).selected).toEqual(unversioned);
  });

  it('a specific policy that selects nothing fails, naming the folders', () => {
    expect(() => selectVersions(folders('1', '2'), { kind: 'specific', versions: ['5'] })).toThrow(/version_policy specific \[5\] selects none of the version folders \[1, 2\]/);
  });
});

const three = { '1': 'identity_fp32', '2': 'identity_fp32', '3': 'identity_fp32' };
const withPolicy = (policy: string) => ({ versions: three, config: `version_policy: { ${policy} }\n` });

describe('a server whose models use each policy', () => {
  const f = useGrpcFixture({
    unset: { versions: three },
    all: withPolicy('all: {}'),
    latest1: withPolicy('latest: { num_versions: 1 }'),
    latest2: withPolicy('latest { num_versions: 2 }'),
    specific: withPolicy('specific: { versions: [ 1, 3 ] }'),
    nothing: withPolicy('specific: { versions: [ 9 ] }'),
  });
  const body = { inputs: [{ name: 'INPUT0', shape: [1, 1], datatype: 'FP32', data: [[4]] }] };
  const grpcInfer = (name: string, version: string) =>
    f.client.infer({ model_name: name, model_version: version, inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 1], contents: { fp32_contents: [4] } }] });

  it.each([
    ['unset', ['1', '2', '3'], ['4']],
    ['all', ['1', '2', '3'], ['4']],
    ['latest1', ['3'], ['1', '2']],
    ['latest2', ['2', '3'], ['1']],
    ['specific', ['1', '3'], ['2']],
  ])('%s serves versions %j and answers 404 / NOT_FOUND for %j', async (name, served, absent) => {
    expect(json(await get(`${f.server.url}/v2/models/${name}`))).toMatchObject({ name, versions: served });
    expect(await f.client.call('ModelMetadata', { name })).toMatchObject({ name, versions: served });
    for (const v of served) {
      const r = await post(`${f.server.url}/v2/models/${name}/versions/${v}/infer`, body);
      expect(r.status, r.text).toBe(200);
      expect(json(r)).toMatchObject({ model_version: v, outputs: [{ data: [4] }] });
      expect(await grpcInfer(name, v)).toMatchObject({ model_version: v });
      expect(await f.client.call('ModelReady', { name, version: v })).toEqual({ ready: true });
    }
    for (const v of absent) {
      expectError(await post(`${f.server.url}/v2/models/${name}/versions/${v}/infer`, body), 404, `Model with name ${name} and version ${v} does not exist.`);
      expectError(await get(`${f.server.url}/v2/models/${name}/versions/${v}/ready`), 404);
      const e = await grpcError(grpcInfer(name, v));
      expect([e.code, e.details]).toEqual([5, `Model with name ${name} and version ${v} does not exist.`]);
    }
    // The default version is the highest one the policy selects.
    expect(json(await post(`${f.server.url}/v2/models/${name}/infer`, body))).toMatchObject({ model_version: served.at(-1) });
  });

  it.each([
    ['unset', { all: {} }],
    ['all', { all: {} }],
    ['latest2', { latest: { num_versions: 2 } }],
    ['specific', { specific: { versions: [1, 3] } }],
  ])('%s: the model configuration extension reports the policy it runs with (REST and gRPC)', async (name, policy) => {
    expect(json(await get(`${f.server.url}/v2/models/${name}/config`))).toMatchObject({ version_policy: policy });
    const grpc = await f.client.call<{ config: { version_policy: Record<string, unknown> } }>('ModelConfig', { name });
    // int64 versions arrive as strings from the test's gRPC client (longs: String).
    const numeric = JSON.parse(JSON.stringify(grpc.config.version_policy), (k, v: unknown) => (k === 'versions' && Array.isArray(v) ? v.map(Number) : v)) as unknown;
    expect(numeric).toMatchObject(policy);
  });

  it('a policy that selects no folder fails the load with the reason', async () => {
    expectError(await get(`${f.server.url}/v2/models/nothing/ready`), 503, /version_policy specific \[9\] selects none of the version folders \[1, 2, 3\]/);
  });
});

/**
 * TF Serving's model status API on the V1 surface: `GET /v1/models/{m}/versions/{v}` and
 * `/labels/{l}` (GetModelStatus's REST shape), `/versions/{v}/metadata` (its signature
 * metadata of that version), on a real server. Versions and labels resolve as the versioned
 * predict routes resolve them; `GET /v1/models/{m}` stays KServe's readiness answer.
 */
import { cpSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, get, json } from '../../test/helpers/http.js';
import { type TestServer, makeRepository, startServer } from '../../test/helpers/server.js';
import { TF_FIXTURES } from '../backends/tensorflow/tf-fixtures.test-helper.js';

const CONFIG = ['version_labels { key: "stable" value: 1 }', 'version_labels { key: "canary" value: 2 }', 'version_labels { key: "ghost" value: 9 }'].join('\n');
// A label may not be a number: this model's load fails, with no version loaded.
const BAD = 'version_labels { key: "7" value: 1 }';
const ok = (version: string) => ({ model_version_status: [{ version, state: 'AVAILABLE', status: { error_code: 'OK', error_message: '' } }] });

describe('V1 model status routes (TF Serving)', () => {
  let t: TestServer;
  let repo: ReturnType<typeof makeRepository>;
  beforeAll(async () => {
    repo = makeRepository({ m: { versions: { '1': 'identity_fp32', '2': 'scale2_fp32' }, config: CONFIG }, bad: { versions: { '1': 'identity_fp32' }, config: BAD } });
    cpSync(path.join(TF_FIXTURES, 'dense_classifier_tfjs'), path.join(repo.dir, 'tf', '3'), { recursive: true });
    t = await startServer(['--model_repository', repo.dir]);
  });
  afterAll(async () => {
    await t.close();
    repo.cleanup();
  });

  it.each([
    ['/v1/models/m/versions/1', '1'],
    ['/v1/models/m/versions/2', '2'],
    ['/v1/models/m/labels/stable', '1'],
    ['/v1/models/m/labels/canary', '2'],
  ])('GET %s answers the version it names as AVAILABLE', async (route, version) => {
    const r = await get(`${t.url}${route}`);
    expect(r.status, r.text).toBe(200);
    expect(json(r)).toEqual(ok(version));
  });

  it('GET /v1/models/{m} stays KServe readiness', async () => {
    expect(json(await get(`${t.url}/v1/models/m`))).toEqual({ name: 'm', ready: true });
  });

  it('a version whose load failed is END with the reason, as TF Serving reports it', async () => {
    const r = json(await get(`${t.url}/v1/models/bad/versions/1`)) as {
      model_version_status: Array<{ version: string; state: string; status: { error_code: string; error_message: string } }>;
    };
    expect(r.model_version_status).toEqual([
      { version: '1', state: 'END', status: { error_code: 'UNKNOWN', error_message: expect.stringMatching(/version label '7' is a number/) } },
    ]);
    // A label names no version until one is loaded.
    expectError(await get(`${t.url}/v1/models/bad/labels/stable`), 503, /Model with name bad is not ready/);
  });

  it.each([
    ['/v1/models/m/versions/3', 'Model with name m and version 3 does not exist.'],
    ['/v1/models/m/labels/ghost', 'Model with name m and version ghost does not exist.'],
    ['/v1/models/m/labels/nolabel', 'Model with name m and version nolabel does not exist.'],
    ['/v1/models/nope/versions/1', 'Model with name nope does not exist.'],
    ['/v1/models/m/versions/1/metadata', /not found|Route/i],
  ] as const)('GET %s is 404 in the V1 error shape', async (route, message) => {
    expectError(await get(`${t.url}${route}`), 404, message);
  });

  it.each([
    ['/v1/models/m/labels/1', "Label '1' is a number; a version number goes in /versions/1"],
    ['/v1/models/m/versions/stable', "Version 'stable' is not a number; a version label goes in /labels/stable"],
  ])('GET %s is 400: versions and labels are kept apart', async (route, message) => {
    expectError(await get(`${t.url}${route}`), 400, message);
  });

  it("GET /v1/models/{m}/versions/{v}/metadata is TF Serving's metadata of that version", async () => {
    const r = await get(`${t.url}/v1/models/tf/versions/3/metadata`);
    expect(r.status, r.text).toBe(200);
    expect(json(r)).toMatchObject({ model_spec: { name: 'tf', version: '3', signature_name: '' }, metadata: { signature_def: { signature_def: { serving_default: {} } } } });
    expectError(await get(`${t.url}/v1/models/tf/versions/4/metadata`), 404, 'Model with name tf and version 4 does not exist.');
  });
});

/**
 * TF Serving's versioned V1 routes on a real server: `/v1/models/{m}/versions/{v}:predict`
 * and `/v1/models/{m}/labels/{label}:predict`, resolved through config.pbtxt's
 * `version_labels` as the V2 and gRPC version fields are. Version 1 is an identity model and
 * version 2 doubles its input, so each answer shows which version ran.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, get, json, metricValue, post } from '../../test/helpers/http.js';
import { type TestServer, makeRepository, startServer } from '../../test/helpers/server.js';

const CONFIG = ['version_labels { key: "stable" value: 1 }', 'version_labels { key: "canary" value: 2 }', 'version_labels { key: "ghost" value: 9 }'].join('\n');
const BODY = { instances: [[1, 2]] };

describe('V1 version and label routes (TF Serving)', () => {
  let t: TestServer;
  let repo: ReturnType<typeof makeRepository>;
  beforeAll(async () => {
    repo = makeRepository({ m: { versions: { '1': 'identity_fp32', '2': 'scale2_fp32' }, config: CONFIG } });
    t = await startServer(['--model_repository', repo.dir]);
  });
  afterAll(async () => {
    await t.close();
    repo.cleanup();
  });

  it.each([
    ['/v1/models/m/labels/stable:predict', [[1, 2]]],
    ['/v1/models/m/labels/canary:predict', [[2, 4]]],
    ['/v1/models/m/versions/1:predict', [[1, 2]]],
    ['/v1/models/m/versions/2:predict', [[2, 4]]],
    ['/v1/models/m:predict', [[2, 4]]],
  ])('POST %s runs the version it names', async (path, predictions) => {
    const r = await post(`${t.url}${path}`, BODY);
    expect(r.status, r.text).toBe(200);
    expect(json(r)).toEqual({ predictions });
  });

  it.each([
    ['/v1/models/m/labels/nolabel:predict', 'Model with name m and version nolabel does not exist.'],
    ['/v1/models/m/labels/ghost:predict', 'Model with name m and version ghost does not exist.'],
    ['/v1/models/m/versions/3:predict', 'Model with name m and version 3 does not exist.'],
    ['/v1/models/nope/labels/stable:predict', 'Model with name nope does not exist.'],
  ])('POST %s is 404', async (path, message) => {
    expectError(await post(`${t.url}${path}`, BODY), 404, message);
  });

  it.each([
    ['/v1/models/m/labels/1:predict', "Label '1' is a number; a version number goes in /versions/1"],
    ['/v1/models/m/versions/stable:predict', "Version 'stable' is not a number; a version label goes in /labels/stable"],
  ])('POST %s is 400: versions and labels are kept apart', async (path, message) => {
    expectError(await post(`${t.url}${path}`, BODY), 400, message);
  });

  it('explain on a label is 501 for an ONNX model, as on the model; an unknown verb is 404', async () => {
    expectError(await post(`${t.url}/v1/models/m/labels/stable:explain`, BODY), 501, /explain/);
    expectError(await post(`${t.url}/v1/models/m/labels/stable:frobnicate`, BODY), 404);
  });

  it('counts version and label requests under the model name, as V1 requests', async () => {
    const metrics = (await get(`${t.url}/metrics`)).text;
    // The five answered above (this file's tests run in order).
    expect(metricValue(metrics, 'kserve_inference_requests_total', { model_name: 'm', protocol: 'v1', status_code: '200' })).toBe(5);
  });

  it('the OpenAPI document lists the routes with their path parameters', async () => {
    const doc = json(await get(`${t.url}/openapi.json`)) as { paths: Record<string, { post?: { parameters?: Array<{ name: string }> } }> };
    for (const path of ['/v1/models/{name}/labels/{label}:predict', '/v1/models/{name}/versions/{version}:predict', '/v1/models/{name}/labels/{label}:explain']) {
      expect(
        doc.paths[path]?.post?.parameters?.map((p) => p.name),
        path,
      ).toEqual(['name', path.includes('labels') ? 'label' : 'version']);
    }
  });
});

/** Wrong methods get 405 with Allow; an unknown model answers 404 before its body is read. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IRIS_DIR, type TestServer, startServer } from '../../test/helpers/server.js';

describe('method and model checks before the body', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startServer(['--model_name', 'iris', '--model_dir', IRIS_DIR]);
  });
  afterAll(async () => t.close());

  it.each([
    ['GET', '/v2/models/iris/infer', 'POST'],
    ['PUT', '/v2/models/iris/versions/1/infer', 'POST'],
    ['POST', '/v2/health/ready', 'GET'],
    ['DELETE', '/v2/models/iris', 'GET'],
    ['GET', '/v2/repository/models/iris/load', 'POST'],
  ])('%s %s → 405 allowing %s', async (method, url, allow) => {
    const res = await fetch(`${t.url}${url}`, { method });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe(allow);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(await res.json()).toEqual({ error: `Method ${method} is not allowed for ${url}; allowed: ${allow}` });
  });

  it.each([
    ['malformed JSON', { 'content-type': 'application/json' }, '{not json'],
    ['binary without its header', { 'content-type': 'application/octet-stream' }, 'xxxx'],
    ['FP16 over JSON', { 'content-type': 'application/json' }, JSON.stringify({ inputs: [{ name: 'a', shape: [1], datatype: 'FP16', data: [1] }] })],
  ])('answers 404 for an unknown model whatever the body (%s)', async (_case, headers, body) => {
    const res = await fetch(`${t.url}/v2/models/nope/infer`, { method: 'POST', headers, body });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: 'Model with name nope does not exist.' });
  });
});

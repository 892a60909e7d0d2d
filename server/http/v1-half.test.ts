/** V1 has no binary form: FP16 models take and give plain JSON numbers there. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestServer, makeRepository, startServer } from '../../test/helpers/server.js';

describe('V1 predict on an FP16 model', () => {
  let t: TestServer;
  let repo: ReturnType<typeof makeRepository>;
  beforeAll(async () => {
    repo = makeRepository({ half: 'identity_fp16' });
    t = await startServer(['--model_repository', repo.dir]);
  });
  afterAll(async () => {
    await t.close();
    repo.cleanup();
  });

  it('rounds inputs to half precision and returns them as numbers', async () => {
    const res = await fetch(`${t.url}/v1/models/half:predict`, {
      method: 'POST',
      body: JSON.stringify({
        instances: [
          [0.5, 6.8, -2],
          [65504, 1e-8, 3],
        ],
      }),
    });
    expect(res.status).toBe(200);
    // 6.8 is 6.80078125 in FP16 (0x46cd); 1e-8 underflows to 0.
    expect(await res.text()).toBe('{"predictions":[[0.5,6.80078125,-2.0],[65504.0,0.0,3.0]]}');
  });

  it('still refuses FP16 over V2 JSON, as the anchor does', async () => {
    const res = await fetch(`${t.url}/v2/models/half/infer`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ inputs: [{ name: 'INPUT0', shape: [1, 1], datatype: 'FP16', data: [1] }] }),
    });
    expect(res.status).toBe(400);
  });
});

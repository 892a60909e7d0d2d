import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IRIS_DIR, type TestServer, startServer } from '../../test/helpers/server.js';

describe('iris demo model over REST', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startServer(['--model_name', 'iris', '--model_dir', IRIS_DIR]);
  });
  afterAll(async () => t.close());

  it('predicts V1 instances as the trained classifier does', async () => {
    const res = await fetch(`${t.url}/v1/models/iris:predict`, {
      method: 'POST',
      body: JSON.stringify({
        instances: [
          [6.8, 2.8, 4.8, 1.4],
          [5.1, 3.5, 1.4, 0.2],
          [6.3, 3.3, 6.0, 2.5],
        ],
      }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(await res.json()).toEqual({ predictions: [1, 0, 2] });
  });
});

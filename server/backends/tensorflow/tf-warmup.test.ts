/**
 * TF Serving's warm-up records through a real server and the real tensorflow backend: the
 * portable path (TF.js graph model) always, the SavedModel path where tfjs-node is built
 * (scripts/build-tfjs-node.sh). The records are decoded, checked against the model's own
 * signature and run before the model is READY; a bad one keeps it from loading, with the
 * reason on the readiness route.
 */
import path from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, get } from '../../../test/helpers/http.js';
import { type TestServer, startServer } from '../../../test/helpers/server.js';
import { otherLog, predictLog, shape, tfRecords, writeWarmupFile } from '../../repository/tf-serving-warmup.test-helper.js';
import { nativeStatus } from './tf-backend.js';
import { expected, tfRepository } from './tf-fixtures.test-helper.js';

const native = nativeStatus();
const DT_FLOAT = 1;
const x = (rows: number[][]) => ({ dtype: DT_FLOAT, tensor_shape: shape(rows.length, rows[0]?.length ?? 0), float_val: rows.flat() });

for (const p of [
  { path: 'portable', suffix: '_tfjs', versionDir: '', enabled: true },
  { path: 'native (SavedModel)', suffix: '', versionDir: '1', enabled: native.available },
] as const) {
  // The reason is in the title, so a run without the native binding says why it skipped.
  describe.skipIf(!p.enabled)(`TF Serving warm-up records, ${p.path} path${p.enabled || native.available ? '' : ` (${native.reason})`}`, () => {
    let s: TestServer;
    let repo: ReturnType<typeof tfRepository>;
    const lines: string[] = [];
    beforeAll(async () => {
      repo = tfRepository({ good: `dense_classifier${p.suffix}`, shapes: `dense_classifier${p.suffix}`, classify: `dense_classifier${p.suffix}` });
      const dir = (m: string) => path.join(repo.dir, m, p.versionDir);
      writeWarmupFile(dir('good'), tfRecords([predictLog({ x: x(expected.x) }), predictLog({ x: x([[1, 2, 3, 4]]) }, { output_filter: ['probabilities'] })]));
      writeWarmupFile(dir('shapes'), tfRecords([predictLog({ x: x([[1, 2, 3]]) })]));
      writeWarmupFile(dir('classify'), tfRecords([otherLog('classify_log')]));
      const logger = pino({ level: 'info' }, new Writable({ write: (c: Buffer, _e, cb) => (lines.push(c.toString()), cb()) }));
      s = await startServer(['--model_repository', repo.dir], { logger });
    });
    afterAll(async () => {
      await s?.close();
      repo?.cleanup();
    });

    it('runs the records before the model is READY', async () => {
      expect((await get(`${s.url}/v2/models/good/ready`)).status).toBe(200);
      const done = lines.map((l) => JSON.parse(l) as { msg: string; model?: string; records?: number }).find((l) => l.msg === 'model warm-up done' && l.model === 'good');
      expect(done?.records).toBe(2);
    });

    it("fails the load on a record the model's signature refuses, with the reason", async () => {
      expectError(
        await get(`${s.url}/v2/models/shapes/ready`),
        503,
        /warm-up record 0 of assets.extra\/tf_serving_warmup_requests failed: input 'x': shape \[1,3\] does not match the model's \[-1,4\]/,
      );
    });

    it('fails the load on a classify_log record, naming it', async () => {
      expectError(await get(`${s.url}/v2/models/classify/ready`), 503, /is a classify_log; only predict_log warm-up records are supported/);
    });
  });
}

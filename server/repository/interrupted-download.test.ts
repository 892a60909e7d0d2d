/**
 * A model folder the storage-initializer's move into was interrupted (it still holds
 * `.storage-initializer-commit`, docs/storage-initializer.md) is not served: the load fails
 * naming the folder and what to do, as the storage-initializer's contract asks of readers
 * (#27 item 10). With --model_dir the server exits 1 (NoModelReady) with that reason; in a
 * repository only the model concerned fails, or every model when the marker is at the root.
 */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { post } from '../../test/helpers/http.js';
import { runCli } from '../../test/helpers/process.js';
import { IRIS_DIR, makeRepository, startServer } from '../../test/helpers/server.js';

const MARKER = '.storage-initializer-commit';
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('a folder holding the storage-initializer commit marker', () => {
  it('--model_dir: start-up fails with NoModelReady naming the folder and the cure', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'kserve-ts-interrupted-'));
    dirs.push(dir);
    cpSync(IRIS_DIR, dir, { recursive: true });
    writeFileSync(path.join(dir, MARKER), '.storage-initializer-tmp123');
    const p = runCli(['serve', '--model_name', 'iris', '--model_dir', dir, '--http_host', '127.0.0.1', '--http_port', '0', '--grpc_port', '0']);
    expect(await p.exited).toBe(1);
    expect(p.output()).toContain(`kserve-ts serve: no model is ready (iris: Failed to load: ${dir} holds ${MARKER}: a storage-initializer run was interrupted`);
    expect(p.output()).toContain('run the storage-initializer into it again (it finishes the move) before serving it');
  });

  it('a repository model folder: that model fails with the cause, the others load; without the marker it loads', async () => {
    const repo = makeRepository({ m: 'scale2_fp32', n: 'scale2_fp32' });
    dirs.push(repo.dir);
    writeFileSync(path.join(repo.dir, 'm', MARKER), 'x');
    const t = await startServer(['--model_repository', repo.dir]);
    try {
      expect(t.server.repository.state('n')?.state).toBe('READY');
      expect(t.server.repository.state('m')).toEqual({ state: 'FAILED', reason: expect.stringContaining(`${path.join(repo.dir, 'm')} holds ${MARKER}`) });
      rmSync(path.join(repo.dir, 'm', MARKER));
      expect((await post(`${t.url}/v2/repository/models/m/load`)).status).toBe(200);
    } finally {
      await t.close();
    }
  });

  it('the repository root: no model of it is served', async () => {
    const repo = makeRepository({ m: 'scale2_fp32' });
    dirs.push(repo.dir);
    writeFileSync(path.join(repo.dir, MARKER), 'x');
    const t = await startServer(['--model_repository', repo.dir]);
    try {
      expect(t.server.repository.state('m')).toEqual({ state: 'FAILED', reason: expect.stringContaining(`${repo.dir} holds ${MARKER}`) });
      expect(t.server.repository.serverReady()).toBe(false);
    } finally {
      await t.close();
    }
  });
});

/**
 * Server readiness before the startup models are known: a probe answered between the
 * listener's bind and the repository's listing must not pass (it would send traffic to a
 * server with nothing loaded), and one answered after the listing follows the models.
 */
import { mkdirSync, mkdtempSync, rmSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { parseFlags } from '../../cli/flags.js';
import { fixture } from '../../test/helpers/server.js';
import { BackendSettings } from '../backend/backend-settings.js';
import { defaultBackends } from '../server.js';
import { ModelRepository } from './model-repository.js';
import { type ModelSource, repositorySource } from './model-source.js';

describe('server readiness at start-up', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'kserve-ts-startup-'));
  mkdirSync(path.join(root, 'm'));
  copyFileSync(fixture('identity_fp32'), path.join(root, 'm', 'model.onnx'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('is not ready until the startup set is listed, then once its models are', async () => {
    const disk = repositorySource(root);
    let listed!: () => void;
    const gate = new Promise<void>((resolve) => (listed = resolve));
    // The real folder, listed only when the test opens the gate (a slow disk).
    const source: ModelSource = { list: async () => (await gate, disk.list()), locate: (n) => disk.locate(n) };
    const backends = defaultBackends();
    const repo = new ModelRepository({
      source,
      backends,
      backendSettings: new BackendSettings(backends, parseFlags([], backends.flags())),
      threads: 1,
      logger: pino({ level: 'silent' }),
      drainTimeoutMs: 1000,
    });
    const loading = repo.loadStartupModels();
    expect(repo.serverReady()).toBe(false);
    listed();
    await loading;
    expect(repo.state('m')?.state).toBe('READY');
    expect(repo.serverReady()).toBe(true);
    await repo.unloadAll();
  });

  it('a server with an empty startup set is ready once it has listed it', async () => {
    const backends = defaultBackends();
    const repo = new ModelRepository({
      source: { list: async () => [], locate: async () => undefined },
      backends,
      backendSettings: new BackendSettings(backends, parseFlags([], backends.flags())),
      threads: 1,
      logger: pino({ level: 'silent' }),
      drainTimeoutMs: 1000,
    });
    expect(repo.serverReady()).toBe(false);
    await repo.loadStartupModels();
    expect(repo.serverReady()).toBe(true);
  });
});

/**
 * When a loaded instance breaks on its own (its worker thread dies), the repository stops
 * routing to it, reports the cause, and loads the model afresh.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import type { Backend, ModelInstance } from '../backend/backend.js';
import { parseFlags } from '../../cli/flags.js';
import { BackendRegistry } from '../backend/backend-registry.js';
import { BackendSettings } from '../backend/backend-settings.js';
import { ModelRepository } from './model-repository.js';
import { repositorySource } from './model-source.js';

/** A backend whose instances can be broken from the test, standing in for a crashed worker. */
function breakableBackend(): { backend: Backend; instances: Array<{ fail(err: Error): void }> } {
  const instances: Array<{ fail(err: Error): void }> = [];
  const backend: Backend = {
    name: 'breakable',
    aliases: [],
    flags: [],
    settings: () => undefined,
    modelOptions: () => undefined,
    detect: async (dir) => path.join(dir, 'model.bin'),
    load: async (): Promise<ModelInstance> => {
      const listeners: Array<(err: Error) => void> = [];
      const generation = instances.length;
      instances.push({ fail: (err) => listeners.forEach((l) => l(err)) });
      return {
        platform: 'test',
        inputs: [{ name: 'x', datatype: 'FP32', shape: [-1] }],
        outputs: [{ name: 'y', datatype: 'FP32', shape: [-1] }],
        infer: async () => [{ name: 'y', datatype: 'FP32', shape: [1], data: Float32Array.of(generation) }],
        unload: async () => undefined,
        onFailure: (l) => listeners.push(l),
      };
    },
  };
  return { backend, instances };
}

describe('model instance failure', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'kserve-ts-fail-'));
  mkdirSync(path.join(root, 'm'));
  writeFileSync(path.join(root, 'm', 'model.bin'), '');
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('marks the model failed with the cause, then reloads it', async () => {
    const { backend, instances } = breakableBackend();
    const logger = pino({ level: 'silent' });
    const backends = new BackendRegistry().register(backend);
    const repo = new ModelRepository({
      source: repositorySource(root),
      backends,
      backendSettings: new BackendSettings(backends, parseFlags([], [])),
      threads: 1,
      logger,
      drainTimeoutMs: 1000,
    });
    await repo.loadStartupModels();
    expect(repo.state('m')?.state).toBe('READY');

    instances[0]?.fail(new Error('onnx worker exited with code 1'));
    expect(repo.state('m')).toEqual({ state: 'FAILED', reason: 'model instance failed: onnx worker exited with code 1' });
    expect(() => repo.acquire('m')).toThrow(/is not ready\. model instance failed: onnx worker exited/);
    expect(repo.serverReady()).toBe(false);

    // Bounded, failing only as a timeout (expect.poll's own default is 1 s).
    await expect.poll(() => repo.state('m')?.state, { timeout: 30_000 }).toBe('READY');
    expect(instances).toHaveLength(2);
    const lease = repo.acquire('m');
    const out = await lease.served.instance.infer([], ['y']);
    lease.release();
    expect(Array.from(out[0]?.data as Float32Array)).toEqual([1]);
    expect(repo.serverReady()).toBe(true);
    await repo.unloadAll();
  });
});

/**
 * The puller's pure parts, table-driven: Kubernetes quantities, KServe's models.json (what is
 * accepted, what is refused and with which message), the memory budget, the coalescing queue,
 * and the serve flags that turn the puller on.
 */
import { describe, expect, it } from 'vitest';
import { parseServeArgs } from '../config.js';
import { MemoryBudget } from './memory-budget.js';
import { parseModelsJson } from './models-json.js';
import { PullQueue } from './pull-queue.js';
import { quantityBytes } from '../../cli/quantity.js';

describe('quantityBytes', () => {
  it.each([
    ['256Mi', 256 * 2 ** 20],
    ['1Gi', 2 ** 30],
    ['1.5Gi', 1.5 * 2 ** 30],
    ['1G', 1e9],
    ['500k', 500_000],
    ['128', 128],
    ['1e3', 1000],
    ['+2Ki', 2048],
    ['1500m', 2], // 1.5 bytes round up, as Kubernetes rounds Value()
    ['.5Ki', 512],
  ])('%s is %d bytes', (text, bytes) => {
    expect(quantityBytes(text)).toBe(bytes);
  });

  it.each(['', 'Mi', '-1Gi', '1 Gi', '1gi', '1Zi', '1.2.3', 'abc', '1e400'])('%j is not a memory quantity', (text) => {
    expect(quantityBytes(text)).toBeUndefined();
  });
});

describe("parseModelsJson (KServe's models.json)", () => {
  it('reads the controller’s entries, ignoring fields it does not know', () => {
    const parsed = parseModelsJson(
      JSON.stringify([
        { modelName: 'a', modelSpec: { storageUri: 's3://b/a', framework: 'onnx', memory: '1Gi', extra: 1 } },
        { modelName: 'b.v2', modelSpec: { storageUri: 'gs://b/b', framework: 'tensorflow' }, other: true },
      ]),
    );
    expect(parsed).toEqual({
      ok: true,
      models: new Map([
        ['a', { storageUri: 's3://b/a', framework: 'onnx', memory: '1Gi', memoryBytes: 2 ** 30 }],
        ['b.v2', { storageUri: 'gs://b/b', framework: 'tensorflow', memory: undefined, memoryBytes: 0 }],
      ]),
    });
  });

  it.each(['', '  \n', 'null', '[]'])('%j is an empty set', (text) => {
    expect(parseModelsJson(text)).toEqual({ ok: true, models: new Map() });
  });

  it.each([
    ['[{"modelName": "a"', /^not JSON: /],
    ['{"modelName": "a"}', /^expected a JSON array/],
    ['[1]', /^entry 0: expected an object/],
    ['[{"modelName": "../x", "modelSpec": {"storageUri": "s3://b/x"}}]', /^entry 0: "modelName" must be a name .* got "\.\.\/x"/],
    ['[{"modelName": ".hidden", "modelSpec": {"storageUri": "s3://b/x"}}]', /^entry 0: "modelName"/],
    ['[{"modelName": 7, "modelSpec": {"storageUri": "s3://b/x"}}]', /^entry 0: "modelName" .* got 7/],
    ['[{"modelName": "a", "modelSpec": {"storageUri": "s3://b/a"}}, {"modelName": "a", "modelSpec": {"storageUri": "s3://b/b"}}]', /^entry 1: model 'a' is named twice/],
    ['[{"modelName": "a"}]', /^entry 0 \(a\): "modelSpec" must be an object/],
    ['[{"modelName": "a", "modelSpec": {"storageUri": ""}}]', /^entry 0 \(a\): "modelSpec.storageUri" must be a non-empty string/],
    ['[{"modelName": "a", "modelSpec": {"storageUri": "s3://b/a", "framework": 3}}]', /"modelSpec.framework" must be a string/],
    ['[{"modelName": "a", "modelSpec": {"storageUri": "s3://b/a", "memory": "lots"}}]', /"modelSpec.memory" must be a Kubernetes quantity such as "256Mi", got "lots"/],
    ['[{"modelName": "a", "modelSpec": {"storageUri": "s3://b/a", "memory": 5}}]', /"modelSpec.memory" must be a Kubernetes quantity/],
  ])('%s is refused whole', (text, message) => {
    const parsed = parseModelsJson(text);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error).toMatch(message);
  });
});

describe('MemoryBudget', () => {
  it('holds what fits, refuses what does not with the numbers, and counts a model once when it changes', () => {
    const b = new MemoryBudget(100 * 2 ** 20);
    expect(b.reserve('a', 60 * 2 ** 20)).toBeUndefined();
    expect(b.reserve('b', 50 * 2 ** 20)).toBe(
      'model b declares memory 52428800 bytes (50Mi), more than the 41943040 bytes (40Mi) left of --model_memory_limit 104857600 bytes (100Mi) (62914560 bytes (60Mi) held by other models)',
    );
    expect(b.used()).toBe(60 * 2 ** 20);
    // a grows within the limit: its own share is not counted against it.
    expect(b.reserve('a', 90 * 2 ** 20)).toBeUndefined();
    b.release('a');
    expect(b.reserve('b', 100 * 2 ** 20)).toBeUndefined();
    expect(b.used()).toBe(100 * 2 ** 20);
  });

  it('with no limit counts nothing against anything', () => {
    const b = new MemoryBudget(undefined);
    expect(b.reserve('a', 2 ** 50)).toBeUndefined();
  });
});

describe('PullQueue', () => {
  it('works one name at a time in order, coalescing a name pushed while it waits', async () => {
    const done: string[] = [];
    let running = 0;
    let most = 0;
    let release!: () => void;
    const first = new Promise<void>((r) => (release = r));
    const q = new PullQueue(async (name) => {
      running++;
      most = Math.max(most, running);
      if (name === 'a' && done.length === 0) await first;
      done.push(name);
      running--;
    });
    q.push('a');
    q.push('b');
    q.push('c');
    q.push('b');
    q.push('c');
    expect(q.size).toBe(2); // a runs; b and c wait once each
    release();
    await q.idle();
    expect(done).toEqual(['a', 'b', 'c']);
    expect(most).toBe(1);
  });

  it('a failing item does not stop the ones after it', async () => {
    const done: string[] = [];
    const q = new PullQueue(async (name) => {
      if (name === 'bad') throw new Error('boom');
      done.push(name);
    });
    q.push('bad');
    q.push('good');
    await q.idle();
    expect(done).toEqual(['good']);
  });
});

describe('serve flags of the puller', () => {
  const parse = (argv: string[], env: NodeJS.ProcessEnv = {}) => parseServeArgs(argv, { HDFS_SECRET_DIR: '/nonexistent', ...env }, []).config;

  it('is off without --model_config_file', () => {
    expect(parse(['--model_dir', '/m']).puller).toBeUndefined();
  });

  it('reads the file, the folder, the memory limit and the cache (flag or STORAGE_CACHE_DIR)', () => {
    const p = parse(['--model_dir', '/mnt/models', '--model_config_file', '/mnt/configs/models.json', '--model_memory_limit', '2Gi'], { STORAGE_CACHE_DIR: '/cache' });
    expect(p.puller).toMatchObject({
      configFile: '/mnt/configs/models.json',
      modelRoot: '/mnt/models',
      memoryLimitBytes: 2 * 2 ** 30,
      fetch: { cache: { dir: '/cache', maxBytes: undefined }, pvcRoot: '/mnt/pvc' },
    });
    expect(parse(['--model_dir', '/m', '--model_config_file', '/f', '--storage_cache_dir', '/c'], { STORAGE_CACHE_DIR: '/cache' }).puller?.fetch.cache).toEqual({
      dir: '/c',
      maxBytes: undefined,
    });
    expect(parse(['--model_dir', '/m', '--model_config_file', '/f']).puller?.fetch.cache).toBeUndefined();
    expect(parse(['--model_dir', '/m', '--model_config_file', '/f', '--storage_cache_max_bytes', '2Gi'], { STORAGE_CACHE_DIR: '/cache' }).puller?.fetch.cache).toEqual({
      dir: '/cache',
      maxBytes: 2 * 2 ** 30,
    });
    expect(parse(['--model_dir', '/m', '--model_config_file', '/f'], { STORAGE_CACHE_DIR: '/cache', STORAGE_CACHE_MAX_BYTES: '500M' }).puller?.fetch.cache?.maxBytes).toBe(500e6);
    expect(parse(['--model_dir', '/m', '--model_config_file', '/f']).puller?.memoryLimitBytes).toBeUndefined();
  });

  it.each([
    [['--model_config_file', '/f'], '--model_config_file needs --model_dir: the folder the models are pulled into (e.g. /mnt/models)'],
    [['--model_repository', '/r', '--model_config_file', '/f'], '--model_config_file pulls into --model_dir; it does not go with --model_repository'],
    [['--model_dir', '/m', '--model_config_file', '/f', '--model_memory_limit', 'big'], "--model_memory_limit must be a Kubernetes quantity such as 4Gi, got 'big'"],
    [
      ['--model_dir', '/m', '--model_config_file', '/f', '--storage_cache_dir', '/c', '--storage_cache_max_bytes', 'lots'],
      "storage settings for --model_config_file: --storage_cache_max_bytes must be a size such as 20Gi or 500000000, got 'lots'",
    ],
    [
      ['--model_dir', '/m', '--model_config_file', '/f', '--storage_cache_max_bytes', '1Gi'],
      'storage settings for --model_config_file: --storage_cache_max_bytes bounds the cache, but no cache folder is set (STORAGE_CACHE_DIR or its flag)',
    ],
    [
      ['--model_dir', '/m', '--model_config_file', '/f', '--repository_poll_secs', '5'],
      '--repository_poll_secs does not go with --model_config_file: the model config file decides what is loaded',
    ],
  ])('%j is refused: %s', (argv, message) => {
    expect(() => parse(argv)).toThrow(message);
  });

  it('refuses a storage setting the storage-initializer would refuse', () => {
    expect(() => parse(['--model_dir', '/m', '--model_config_file', '/f'], { STORAGE_CONFIG: '[1]' })).toThrow(/^storage settings for --model_config_file: /);
  });
});

/**
 * Multi-model serving's pure parts: quantities, KServe's models.json and memory accounting,
 * the multi-model decision and the predictor pod's model-config mount, the single-model
 * pods unchanged (golden file written by the code before TrainedModel support), and the
 * TrainedModel validator's rules and messages (KServe's where KServe has them).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import type { InferenceService } from '../../controller/api/inference-service.js';
import type { ServingRuntime } from '../../controller/api/serving-runtime.js';
import type { TrainedModel } from '../../controller/api/trained-model.js';
import { parseInferenceServiceConfig } from '../../controller/config/inferenceservice-config.js';
import { allocate, desiredModelConfigMap, modelConfigJson, trainedModelsOf } from '../../controller/reconcile/multi-model/model-config.js';
import { parseQuantity } from '../../cli/quantity.js';
import { predictPath } from '../../controller/reconcile/multi-model/trained-model-reconciler.js';
import { predictorMemoryLimit, resolvePredictor } from '../../controller/reconcile/predictor-resolution.js';
import { validateParent, validateTrainedModel } from '../../controller/webhooks/trained-model/trained-model-validator.js';
import { ROOT } from '../helpers/server.js';
import { MULTI_MODEL_RUNTIME, SINGLE_MODEL_ISVCS } from './fixtures/single-model-isvcs.js';

const config = parseInferenceServiceConfig(undefined);
const CLUSTER_RUNTIMES = parseAllDocuments(readFileSync(path.join(ROOT, 'controller/runtimes/kserve-ts.yaml'), 'utf8')).map((d) => d.toJS() as ServingRuntime);
const candidates = { namespaced: [MULTI_MODEL_RUNTIME], cluster: CLUSTER_RUNTIMES };

function tm(name: string, memory: string | number, created: string, extra: Partial<TrainedModel['spec']> = {}): TrainedModel {
  return {
    metadata: { name, namespace: 'models', creationTimestamp: created as unknown as Date },
    spec: { inferenceService: 'mms', model: { storageUri: `s3://models/${name}`, framework: 'onnx', memory }, ...extra },
  };
}

const mmsIsvc: InferenceService = {
  apiVersion: 'serving.kserve.io/v1beta1',
  kind: 'InferenceService',
  metadata: { name: 'mms', namespace: 'models', uid: 'uid-mms' },
  spec: { predictor: { model: { modelFormat: { name: 'onnx', version: '1' }, runtime: 'kserve-ts-mms' } } },
};

describe('Kubernetes quantities', () => {
  it.each([
    ['256Mi', 256 * 2 ** 20],
    ['1Gi', 2 ** 30],
    ['1G', 1e9],
    ['500M', 5e8],
    ['1.5Gi', 1.5 * 2 ** 30],
    ['1e9', 1e9],
    ['100k', 1e5],
    ['1024', 1024],
    [2048, 2048],
    ['100m', 0.1],
  ] as const)('%s', (q, bytes) => {
    expect(parseQuantity(q)).toBeCloseTo(bytes, 6);
  });
  it.each(['', 'lots', '1 Gi', '1GB', 'Mi'])('%j is not one', (q) => {
    expect(parseQuantity(q)).toBeUndefined();
  });
});

describe("KServe's models.json", () => {
  it("lists the allocated models of the parent sorted by name, in KServe's field names", () => {
    const all = [tm('b', '100Mi', '2026-01-01T00:00:01Z'), tm('a', '200Mi', '2026-01-01T00:00:02Z'), tm('other', '1Mi', '2026-01-01T00:00:00Z', { inferenceService: 'x' })];
    const models = trainedModelsOf('mms', all);
    expect(models.map((m) => m.metadata.name)).toEqual(['b', 'a']);
    expect(JSON.parse(modelConfigJson(models, allocate(models, '1Gi')))).toEqual([
      { modelName: 'a', modelSpec: { storageUri: 's3://models/a', framework: 'onnx', memory: '200Mi' } },
      { modelName: 'b', modelSpec: { storageUri: 's3://models/b', framework: 'onnx', memory: '100Mi' } },
    ]);
    expect(modelConfigJson([], new Set())).toBe('[]');
  });

  it('counts memory oldest first: a model that does not fit is left out, a smaller later one still fits', () => {
    const models = trainedModelsOf('mms', [tm('first', '600Mi', '2026-01-01T00:00:01Z'), tm('big', '600Mi', '2026-01-01T00:00:02Z'), tm('small', '400Mi', '2026-01-01T00:00:03Z')]);
    expect([...allocate(models, '1Gi')]).toEqual(['first', 'small']);
    // No limit: nothing fits (KServe's IsMemoryResourceAvailable compares with a zero limit).
    expect(allocate(models, undefined).size).toBe(0);
  });

  it('leaves out a model being deleted', () => {
    const going = { ...tm('going', '1Mi', '2026-01-01T00:00:00Z'), metadata: { name: 'going', deletionTimestamp: new Date() } };
    expect(trainedModelsOf('mms', [going, tm('stays', '1Mi', '2026-01-01T00:00:01Z')]).map((m) => m.metadata.name)).toEqual(['stays']);
  });

  it('is the ConfigMap modelconfig-<isvc>-0, key models.json, owned by the InferenceService', () => {
    const cm = desiredModelConfigMap(mmsIsvc, '[]');
    expect(cm.metadata).toMatchObject({ name: 'modelconfig-mms-0', namespace: 'models' });
    expect(cm.metadata?.ownerReferences?.[0]).toMatchObject({ kind: 'InferenceService', name: 'mms', uid: 'uid-mms', controller: true });
    expect(cm.data).toEqual({ 'models.json': '[]' });
  });
});

describe('the predictor pod', () => {
  it('of a multi-model InferenceService mounts modelconfig-<isvc>-0 read-only at /mnt/configs and passes --model_config_file', () => {
    const r = resolvePredictor(mmsIsvc, config, candidates);
    if (!r.ok) throw new Error(r.message);
    expect(r.multiModel).toBe(true);
    const pod = r.plan.podSpec;
    expect(pod.volumes).toEqual([
      { name: 'model-config', configMap: { name: 'modelconfig-mms-0' } },
      { name: 'kserve-provision-location', emptyDir: {} },
    ]);
    const main = pod.containers[0]!;
    expect(main.name).toBe('kserve-container');
    expect(main.args).toEqual(['serve', '--model_dir=/mnt/models', '--model_config_file=/mnt/configs/models.json']);
    expect(main.volumeMounts).toEqual([
      { name: 'model-config', mountPath: '/mnt/configs', readOnly: true },
      { name: 'kserve-provision-location', mountPath: '/mnt/models' },
    ]);
    expect(predictorMemoryLimit(r.plan)).toBe('1Gi');
    // No storage URI: nothing for the storage-initializer.
    expect(r.plan.podAnnotations['internal.serving.kserve.io/storage-initializer-sourceuri']).toBeUndefined();
  });

  it("of a custom predictor with MULTI_MODEL_SERVER=true (KServe's variable) gets the same mount", () => {
    const isvc: InferenceService = {
      apiVersion: 'serving.kserve.io/v1beta1',
      kind: 'InferenceService',
      metadata: { name: 'custom-mms', namespace: 'models', uid: 'u' },
      spec: { predictor: { containers: [{ name: 'kserve-container', image: 'c:1', args: ['--x'], env: [{ name: 'MULTI_MODEL_SERVER', value: 'true' }] }] } },
    };
    const r = resolvePredictor(isvc, config, candidates);
    if (!r.ok) throw new Error(r.message);
    expect(r.multiModel).toBe(true);
    expect(r.plan.podSpec.containers[0]!.args).toEqual(['--x', '--model_config_file=/mnt/configs/models.json']);
    expect(r.plan.podSpec.volumes?.[0]).toEqual({ name: 'model-config', configMap: { name: 'modelconfig-custom-mms-0' } });
  });

  it('of every single-model InferenceService is byte-identical to the one made before TrainedModel support (golden)', () => {
    const golden = readFileSync(path.join(ROOT, 'test/controller/fixtures/single-model-pods.golden.json'), 'utf8');
    const now: Record<string, unknown> = {};
    for (const isvc of SINGLE_MODEL_ISVCS) {
      const r = resolvePredictor(isvc, config, candidates);
      if (!r.ok) throw new Error(r.message);
      expect(r.multiModel, isvc.metadata.name).toBe(false);
      now[isvc.metadata.name!] = r.plan;
    }
    expect(`${JSON.stringify(now, null, 2)}\n`).toBe(golden);
    expect(Object.keys(now)).toHaveLength(SINGLE_MODEL_ISVCS.length);
  });
});

describe("the TrainedModel's URL", () => {
  it("is KServe's predict path for the parent's protocol", () => {
    expect(predictPath('m', mmsIsvc)).toBe('/v1/models/m:predict');
    const v2 = { ...mmsIsvc, spec: { predictor: { model: { ...mmsIsvc.spec.predictor.model!, protocolVersion: 'v2' as const } } } };
    expect(predictPath('m', v2)).toBe('/v2/models/m/infer');
  });
});

describe('the TrainedModel validator', () => {
  const ok = tm('model-a', '256Mi', '2026-01-01T00:00:00Z');
  it('accepts a well-formed TrainedModel', () => {
    expect(validateTrainedModel(ok)).toBeUndefined();
    expect(validateTrainedModel({ ...ok, metadata: { name: 'Model_1' } })).toBeUndefined();
  });
  it.each([
    [
      'a name KServe refuses',
      { ...ok, metadata: { name: 'bad.name' } },
      `the Trained Model "bad.name" is invalid: a Trained Model name must consist of alphanumeric characters, '_', or '-'. (e.g. "my-Name" or "abc_123", regex used for validation is '^[a-zA-Z0-9_-]+$')`,
    ],
    [
      'a storage URI without a supported prefix',
      { ...ok, spec: { ...ok.spec, model: { ...ok.spec.model, storageUri: 'ftp://host/m' } } },
      /^the Trained Model "model-a" storageUri field is invalid\. The storage uri must start with one of the prefixes: .*s3:\/\/.*\. \(the storage uri given is "ftp:\/\/host\/m"\)$/,
    ],
    [
      'memory that is not a quantity',
      { ...ok, spec: { ...ok.spec, model: { ...ok.spec.model, memory: 'lots' } } },
      'the Trained Model "model-a" memory field is invalid: "lots" is not a Kubernetes quantity (for example 256Mi)',
    ],
  ] as const)('refuses %s', (_what, bad, message) => {
    const got = validateTrainedModel(bad);
    if (typeof message === 'string') expect(got).toBe(message);
    else expect(got).toMatch(message);
  });
  it('refuses a change of memory (KServe), inferenceService or framework on UPDATE; an equal quantity written another way is no change', () => {
    const withModel = (m: Partial<TrainedModel['spec']['model']>, isvc = 'mms'): TrainedModel => ({ ...ok, spec: { inferenceService: isvc, model: { ...ok.spec.model, ...m } } });
    expect(validateTrainedModel(withModel({ memory: '512Mi' }), ok)).toBe(
      'the Trained Model "model-a" memory field is immutable. The memory was "256Mi" but it is updated to "512Mi"',
    );
    expect(validateTrainedModel(withModel({}, 'other'), ok)).toBe(
      'the Trained Model "model-a" inferenceService field is immutable. The inferenceService was "mms" but it is updated to "other"',
    );
    expect(validateTrainedModel(withModel({ framework: 'tensorflow' }), ok)).toBe(
      'the Trained Model "model-a" framework field is immutable. The framework was "onnx" but it is updated to "tensorflow"',
    );
    expect(validateTrainedModel(withModel({ memory: String(256 * 2 ** 20) }), ok)).toBeUndefined();
    expect(validateTrainedModel(withModel({ storageUri: 's3://models/v2' }), ok)).toBeUndefined();
  });
  it('on CREATE: the parent exists, serves many models and has the memory left', () => {
    expect(validateParent(ok, undefined)).toBe('Inference Service "mms" is not found. Trained Model "model-a" cannot deploy');
    expect(validateParent(ok, { multiModel: false, memoryInUse: [] })).toBe(
      'Inference Service "mms" predictor is not configured for multi-model serving. Trained Model "model-a" cannot deploy',
    );
    expect(validateParent(ok, { multiModel: true, memoryLimit: '1Gi', memoryInUse: ['512Mi', '256Mi'] })).toBeUndefined();
    expect(validateParent(ok, { multiModel: true, memoryLimit: '1Gi', memoryInUse: ['512Mi', '512Mi'] })).toBe(
      'Inference Service "mms" memory resources are not available. Trained Model "model-a" cannot deploy',
    );
    expect(validateParent(ok, { multiModel: true, memoryInUse: [] })).toBe('Inference Service "mms" memory resources are not available. Trained Model "model-a" cannot deploy');
  });
});

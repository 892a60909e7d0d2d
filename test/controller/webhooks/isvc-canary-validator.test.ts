/**
 * `spec.canary` and `predictor.name` in the validating webhook: KServe's
 * `validateCanarySpecs` cases with its messages, and kserve-ts's additions (name length,
 * predictor.name in Knative mode, the A/B pin header annotation).
 */
import { describe, expect, it } from 'vitest';
import type { InferenceService } from '../../../controller/api/inference-service.js';
import { EXACTLY_ONE_PREDICTOR, validateInferenceService } from '../../../controller/webhooks/isvc/validator.js';

const MODE = 'serving.kserve.io/deploymentMode';
const STANDARD = { [MODE]: 'Standard' };
const KNATIVE = { [MODE]: 'Knative' };
const PIN = 'serving.kserve.io/canary-header';

const model = (uri: string) => ({ model: { modelFormat: { name: 'sklearn' }, storageUri: uri } });
const canary = (name: string | undefined, trafficPercent: number, extra: Record<string, unknown> = {}) => ({
  predictor: { ...(name === undefined ? {} : { name }), ...model(`gs://m/${name ?? 'x'}`), ...extra },
  trafficPercent,
});

interface Shape {
  name?: string;
  annotations?: Record<string, string>;
  predictor?: Record<string, unknown>;
  canary?: unknown[];
}

function isvc(s: Shape): InferenceService {
  return {
    apiVersion: 'serving.kserve.io/v1beta1',
    kind: 'InferenceService',
    metadata: { name: s.name ?? 'iris', namespace: 'default', annotations: s.annotations ?? STANDARD },
    spec: { predictor: s.predictor ?? { minReplicas: 4, ...model('gs://m/v1') }, ...(s.canary ? { canary: s.canary } : {}) },
  } as InferenceService;
}

describe('canary validation: accepted', () => {
  it.each<[string, Shape]>([
    ['one canary at 25%', { canary: [canary('v2', 25)] }],
    ['a dark launch (0%)', { canary: [canary('v2', 0)] }],
    ['two canaries summing to 100', { canary: [canary('v2', 60), canary('v3', 40)] }],
    ['a named stable predictor and a canary', { predictor: { name: 'v1', ...model('gs://m/v1') }, canary: [canary('v2', 10)] }],
    ['a canary minReplicas equal to the stable one', { canary: [canary('v2', 10, { minReplicas: 4 })] }],
    [
      'a custom stable predictor with STORAGE_URI',
      { predictor: { containers: [{ name: 'kserve-container', image: 'x', env: [{ name: 'STORAGE_URI', value: 'gs://m/v1' }] }] }, canary: [canary('v2', 10)] },
    ],
    ['predictor.name without canaries (a promoted canary)', { predictor: { name: 'v2', ...model('gs://m/v2') } }],
    ['a pin header with a canary', { annotations: { ...STANDARD, [PIN]: 'x-canary' }, canary: [canary('v2', 20)] }],
    ['a pin header kept after promotion (no canaries)', { annotations: { ...STANDARD, [PIN]: 'X-Model-Version' }, predictor: { name: 'v2', ...model('gs://m/v2') } }],
    [
      'a pin header with four named predictors',
      { annotations: { ...STANDARD, [PIN]: 'x-ab' }, predictor: { name: 'v1', ...model('gs://m/v1') }, canary: [canary('v2', 10), canary('v3', 10), canary('v4', 0)] },
    ],
  ])('%s', (_, shape) => {
    expect(validateInferenceService(isvc(shape), 'Standard')).toEqual([]);
  });
});

describe("canary validation: rejected with KServe's messages", () => {
  it.each<[string, Shape, string]>([
    ['canary in Knative mode', { annotations: KNATIVE, canary: [canary('v2', 10)] }, 'canary is only supported in Standard deployment mode'],
    [
      'a stable predictor without a model',
      { predictor: { containers: [{ name: 'kserve-container', image: 'x' }] }, canary: [canary('v2', 10)] },
      'canary requires a stable predictor with a model (multi-model serving is not supported with canary)',
    ],
    ['a canary without predictor.name', { canary: [canary(undefined, 10)] }, 'canary[0] predictor.name is required'],
    ['duplicate canary names', { canary: [canary('v2', 10), canary('v2', 20)] }, 'canary predictor.name "v2" is duplicated'],
    [
      'a canary named as the stable predictor',
      { predictor: { name: 'v1', ...model('gs://m/v1') }, canary: [canary('v1', 10)] },
      'canary predictor.name "v1" conflicts with stable predictor name',
    ],
    ['trafficPercent above 100', { canary: [canary('v2', 101)] }, 'canary "v2" trafficPercent must be between 0 and 100, got 101'],
    ['trafficPercent below 0', { canary: [canary('v2', -1)] }, 'canary "v2" trafficPercent must be between 0 and 100, got -1'],
    ['a sum above 100', { canary: [canary('v2', 60), canary('v3', 50)] }, 'sum of canary trafficPercent values (110) must be <= 100'],
    ['maxReplicas on a canary', { canary: [canary('v2', 10, { maxReplicas: 3 })] }, 'canary "v2" must not set maxReplicas (canary uses fixed replicas)'],
    ['scaleTarget on a canary', { canary: [canary('v2', 10, { scaleTarget: 3 })] }, 'canary "v2" must not set scaleTarget (canary uses fixed replicas)'],
    ['scaleMetric on a canary', { canary: [canary('v2', 10, { scaleMetric: 'cpu' })] }, 'canary "v2" must not set scaleMetric (canary uses fixed replicas)'],
    ['autoScaling on a canary', { canary: [canary('v2', 10, { autoScaling: { metrics: [] } })] }, 'canary "v2" must not set autoScaling (canary uses fixed replicas)'],
    ['workerSpec on a canary', { canary: [canary('v2', 10, { workerSpec: {} })] }, 'canary "v2" must not set workerSpec (multi-node is not yet supported for canary)'],
    ['canary minReplicas above the stable one', { canary: [canary('v2', 10, { minReplicas: 5 })] }, 'canary "v2" minReplicas (5) must not exceed stable predictor minReplicas (4)'],
    [
      'canary minReplicas above the default stable floor of 1',
      { predictor: model('gs://m/v1'), canary: [canary('v2', 10, { minReplicas: 2 })] },
      'canary "v2" minReplicas (2) must not exceed stable predictor minReplicas (1)',
    ],
    [
      'a canary with two implementations',
      { canary: [{ predictor: { name: 'v2', ...model('gs://m/v2'), sklearn: { storageUri: 'gs://m/x' } }, trafficPercent: 10 }] },
      `canary "v2" predictor: ${EXACTLY_ONE_PREDICTOR}`,
    ],
    [
      'a canary name too long for {isvc}-{name}-predictor',
      { canary: [canary('v'.repeat(50), 10)] },
      `spec.canary[0].predictor.name '${'v'.repeat(50)}' is too long: 'iris-${'v'.repeat(50)}-predictor' (65 characters) must fit the 63-character limit of Kubernetes names`,
    ],
    [
      'a canary storageUri with an unsupported scheme',
      { canary: [canary('v2', 10, { model: { modelFormat: { name: 'sklearn' }, storageUri: 'ftp://m/v2' } })] },
      "spec.canary[0].predictor.model.storageUri: unsupported storage URI scheme 'ftp://'",
    ],
    [
      'predictor.name in Knative mode',
      { annotations: KNATIVE, predictor: { name: 'v1', ...model('gs://m/v1') } },
      'spec.predictor.name is only supported in Standard mode by kserve-ts',
    ],
    [
      'a pin header that is not a header name',
      { annotations: { ...STANDARD, [PIN]: 'x canary:' }, canary: [canary('v2', 10)] },
      "annotation serving.kserve.io/canary-header: 'x canary:' is not an HTTP header name",
    ],
    ['an empty pin header', { annotations: { ...STANDARD, [PIN]: '' }, canary: [canary('v2', 10)] }, "annotation serving.kserve.io/canary-header: '' is not an HTTP header name"],
    [
      'a pin header in Knative mode',
      { annotations: { ...KNATIVE, [PIN]: 'x-canary' } },
      'annotation serving.kserve.io/canary-header is only supported in Standard deployment mode',
    ],
    [
      'a pin header with five named predictors (more than the routes can hold)',
      {
        annotations: { ...STANDARD, [PIN]: 'x-ab' },
        predictor: { name: 'v1', ...model('gs://m/v1') },
        canary: [canary('v2', 10), canary('v3', 10), canary('v4', 0), canary('v5', 0)],
      },
      "annotation serving.kserve.io/canary-header: at most 4 named predictors (the stable predictor's name and the canaries) can be pinned, got 5",
    ],
  ])('%s', (_, shape, message) => {
    const problems = validateInferenceService(isvc(shape), 'Standard');
    expect(
      problems.some((p) => p.startsWith(message)),
      JSON.stringify(problems),
    ).toBe(true);
  });

  it('reports every canary problem, not only the first', () => {
    const problems = validateInferenceService(isvc({ canary: [canary('v2', 70, { maxReplicas: 2 }), canary('v2', 40)] }), 'Standard');
    expect(problems).toEqual([
      'canary "v2" must not set maxReplicas (canary uses fixed replicas)',
      'canary predictor.name "v2" is duplicated',
      'sum of canary trafficPercent values (110) must be <= 100',
    ]);
  });

  it('keeps refusing canaryTrafficPercent in Standard mode (a Knative-mode field)', () => {
    const problems = validateInferenceService(isvc({ predictor: { canaryTrafficPercent: 10, ...model('gs://m/v1') } }), 'Standard');
    expect(problems).toEqual(['spec.predictor.canaryTrafficPercent is only supported in Knative mode (this InferenceService is Standard)']);
  });
});

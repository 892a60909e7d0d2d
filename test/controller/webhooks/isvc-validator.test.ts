import { describe, expect, it } from 'vitest';
import type { InferenceService } from '../../../controller/api/inference-service.js';
import type { DeploymentMode } from '../../../controller/constants.js';
import type { Operation } from '../../../controller/webhooks/admission.js';
import { isvcValidatingWebhook } from '../../../controller/webhooks/isvc/isvc-webhooks.js';
import { SUPPORTED_STORAGE_SCHEMES } from '../../../controller/webhooks/isvc/storage-uri.js';
import { EXACTLY_ONE_PREDICTOR, validateInferenceService } from '../../../controller/webhooks/isvc/validator.js';

const SUPPORTED = `${SUPPORTED_STORAGE_SCHEMES.map((s) => `${s}://`).join(', ')} and local paths`;
import { fakeCluster } from './fake-cluster.js';

const MODE = 'serving.kserve.io/deploymentMode';
const STANDARD = { [MODE]: 'Standard' };
const KNATIVE = { [MODE]: 'Knative' };
const KEDA = { 'serving.kserve.io/autoscalerClass': 'keda' };
const CPU_60 = { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } };

interface Shape {
  name?: string;
  annotations?: Record<string, string>;
  predictor?: Record<string, unknown>;
  transformer?: Record<string, unknown>;
  explainer?: Record<string, unknown>;
  status?: Record<string, unknown>;
}

function isvc(s: Shape = {}): InferenceService {
  return {
    apiVersion: 'serving.kserve.io/v1beta1',
    kind: 'InferenceService',
    metadata: { name: s.name ?? 'iris', namespace: 'default', annotations: s.annotations ?? STANDARD },
    spec: {
      predictor: s.predictor ?? { model: { modelFormat: { name: 'sklearn' }, storageUri: 'gs://m/iris' } },
      ...(s.transformer ? { transformer: s.transformer } : {}),
      ...(s.explainer ? { explainer: s.explainer } : {}),
    },
    ...(s.status ? { status: s.status } : {}),
  };
}

const model = (extra: Record<string, unknown> = {}, component: Record<string, unknown> = {}) => ({
  model: { modelFormat: { name: 'sklearn' }, storageUri: 'gs://m/iris', ...extra },
  ...component,
});

describe('InferenceService validation: accepted', () => {
  it.each<[string, Shape, DeploymentMode?]>([
    ['a plain Standard model', {}],
    ['a Knative model with rps', { annotations: KNATIVE, predictor: model({}, { scaleMetric: 'rps', scaleTarget: 5 }) }],
    ['no annotation, Knative default, concurrency', { annotations: {}, predictor: model({}, { scaleMetric: 'concurrency' }) }, 'Knative'],
    ['cpu target 100', { predictor: model({}, { scaleMetric: 'cpu', scaleTarget: 100 }) }],
    ['memory target above 100 MiB', { predictor: model({}, { scaleMetric: 'memory', scaleTarget: 2048 }) }],
    ['maxReplicas 0 means unbounded', { predictor: model({}, { minReplicas: 3, maxReplicas: 0 }) }],
    ['minReplicas 0 (scale to zero)', { annotations: KNATIVE, predictor: model({}, { minReplicas: 0, maxReplicas: 2 }) }],
    ['local path and pvc:// URIs', { predictor: model({ storageUri: '/models/iris' }) }],
    ['pvc:// URI', { predictor: model({ storageUri: 'pvc://claim/iris' }) }],
    ['custom predictor container', { predictor: { containers: [{ name: 'kserve-container', image: 'x' }] } }],
    ...['sklearn', 'xgboost', 'tensorflow', 'pytorch', 'triton', 'onnx', 'huggingface', 'pmml', 'lightgbm', 'paddle'].map((f): [string, Shape] => [
      `the legacy predictor.${f} spec`,
      { predictor: { [f]: { storageUri: 'gs://m/x' } } },
    ]),
    ...['text_embedding', 'sequence_classification', 'text_generation', 'text2text_generation', 'fill_mask', 'token_classification'].map((task): [string, Shape] => [
      `huggingface with KServe's --task=${task}`,
      { predictor: model({ modelFormat: { name: 'huggingface' }, storageUri: 'hf://org/m', args: ['--model_name=m', `--task=${task}`] }) },
    ]),
    ['a --task another format defines for itself', { predictor: model({ args: ['--task=anything'] }) }],
    ['model + collocated transformer-container', { predictor: { ...model(), containers: [{ name: 'transformer-container', image: 't' }] } }],
    ['storage spec with s3', { predictor: model({ storageUri: undefined, storage: { key: 'k', path: 'iris', parameters: { type: 's3' } } }) }],
    ['storage spec with hdfs', { predictor: model({ storageUri: undefined, storage: { key: 'k', path: 'models/iris', parameters: { type: 'hdfs' } } }) }],
    ['storage spec with webhdfs', { predictor: model({ storageUri: undefined, storage: { path: 'models/iris', parameters: { type: 'webhdfs' } } }) }],
    ['canary traffic in Knative', { annotations: KNATIVE, predictor: model({}, { canaryTrafficPercent: 10 }) }],
    ['an explainer with containers', { explainer: { containers: [{ name: 'kserve-container', image: 'e' }] } }],
    [
      'a logger on every component',
      {
        predictor: model({}, { logger: { url: 'http://sink.ml:8080/events', mode: 'request', metadataHeaders: ['x-tenant', 'traceparent'] } }),
        transformer: { containers: [{ name: 't' }], logger: { mode: 'response' } },
        explainer: { containers: [{ name: 'e' }], logger: {} },
      },
    ],
    ['autoscaler class none with any metric field', { annotations: { ...STANDARD, 'serving.kserve.io/autoscalerClass': 'none' }, predictor: model({}, { scaleMetric: 'rps' }) }],
    [
      'Knative with the Knative HPA class and cpu',
      { annotations: { ...KNATIVE, 'autoscaling.knative.dev/class': 'hpa.autoscaling.knative.dev' }, predictor: model({}, { scaleMetric: 'cpu' }) },
    ],
    ['Knative with autoscalerClass hpa and memory', { annotations: { ...KNATIVE, 'serving.kserve.io/autoscalerClass': 'hpa' }, predictor: model({}, { scaleMetric: 'memory' }) }],
    ['a 53-character name in Standard mode', { name: 'a'.repeat(53) }],
    [
      'hpa autoScaling with cpu and memory Resource metrics and a behavior',
      {
        predictor: model(
          {},
          {
            autoScaling: {
              metrics: [
                { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } },
                { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '1Gi' } } },
              ],
              behavior: { scaleDown: { stabilizationWindowSeconds: 30 } },
            },
          },
        ),
      },
    ],
    ['scaleMetricType AverageValue with a cpu target above 100 (millicores)', { predictor: model({}, { scaleMetricType: 'AverageValue', scaleTarget: 500 }) }],
    ['a Recreate deploymentStrategy in Standard mode', { predictor: model({}, { deploymentStrategy: { type: 'Recreate' } }) }],
    [
      'keda with Resource, External and PodMetric triggers and scale to zero',
      {
        annotations: { ...STANDARD, ...KEDA },
        predictor: model(
          {},
          {
            minReplicas: 0,
            autoScaling: {
              metrics: [
                { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '2Mi' } } },
                { type: 'External', external: { metric: { backend: 'prometheus', serverAddress: 'http://p', query: 'q' }, target: { type: 'Value', value: '10' } } },
                { type: 'PodMetric', podmetric: { metric: { backend: 'opentelemetry', query: 'kserve_model_queue_depth' }, target: { type: 'Value', value: 4 } } },
              ],
            },
          },
        ),
      },
    ],
  ])('%s', (_name, shape, mode = 'Standard') => {
    expect(validateInferenceService(isvc(shape), mode)).toEqual([]);
  });
});

describe('InferenceService validation: rejected', () => {
  it.each<[string, Shape, string, DeploymentMode?]>([
    ['upper-case name', { name: 'Iris' }, "metadata.name 'Iris' is invalid: an InferenceService name must consist of lower case alphanumeric characters or '-'"],
    ['name starting with a digit', { name: '1iris' }, "regex '[a-z]([-a-z0-9]*[a-z0-9])?'"],
    ['name too long for {name}-predictor', { name: 'a'.repeat(54) }, 'is too long (54 characters): at most 53'],
    ['name too long with a transformer', { name: 'a'.repeat(52), transformer: { containers: [{ name: 'transformer-container' }] } }, 'at most 51'],
    ['name too long for the Knative revision', { name: 'a'.repeat(48), annotations: KNATIVE }, "at most 47, so that '<name>-predictor-00001' fits"],
    ['no implementation', { predictor: { minReplicas: 1 } }, `${EXACTLY_ONE_PREDICTOR} (found 0)`],
    [
      'huggingface with a task KServe does not know (a hyphen for the underscore)',
      { predictor: model({ modelFormat: { name: 'huggingface' }, args: ['--task', 'text-embedding'] }) },
      "spec.predictor.model.args: --task 'text-embedding' is not supported; supported tasks are: text_embedding, sequence_classification, fill_mask, token_classification, text_generation, text2text_generation",
    ],
    ['model and onnx', { predictor: { ...model(), onnx: { storageUri: 'gs://x' } } }, '(found 2: predictor.onnx, predictor.model)'],
    [
      'model and a kserve-container',
      { predictor: { ...model(), containers: [{ name: 'kserve-container' }] } },
      '(found 2: predictor.model, predictor.containers[kserve-container])',
    ],
    [
      'two legacy framework specs',
      { predictor: { sklearn: { storageUri: 'gs://a' }, xgboost: { storageUri: 'gs://b' } } },
      `${EXACTLY_ONE_PREDICTOR} (found 2: predictor.sklearn, predictor.xgboost)`,
    ],
    ['a legacy spec and model', { predictor: { ...model(), pmml: { storageUri: 'gs://a' } } }, '(found 2: predictor.pmml, predictor.model)'],
    ['model without format name', { predictor: { model: { modelFormat: { name: '' } } } }, 'spec.predictor.model.modelFormat.name is required'],
    ['negative minReplicas', { predictor: model({}, { minReplicas: -1 }) }, 'spec.predictor.minReplicas cannot be less than 0, got -1'],
    ['negative maxReplicas', { predictor: model({}, { maxReplicas: -2 }) }, 'spec.predictor.maxReplicas cannot be less than 0, got -2'],
    ['min greater than max', { predictor: model({}, { minReplicas: 5, maxReplicas: 2 }) }, 'spec.predictor.minReplicas (5) cannot be greater than maxReplicas (2)'],
    ['negative containerConcurrency', { predictor: model({}, { containerConcurrency: -1 }) }, 'spec.predictor.containerConcurrency cannot be less than 0'],
    [
      'concurrency metric in Standard',
      { predictor: model({}, { scaleMetric: 'concurrency' }) },
      "spec.predictor.scaleMetric 'concurrency' is not supported in Standard mode with the hpa autoscaler (supported: cpu, memory; concurrency and rps need Knative mode)",
    ],
    [
      'cpu metric in Knative',
      { annotations: KNATIVE, predictor: model({}, { scaleMetric: 'cpu' }) },
      "spec.predictor.scaleMetric 'cpu' is not supported in Knative mode (supported: concurrency, rps; cpu and memory need Standard mode)",
    ],
    [
      'memory metric by the Knative default',
      { annotations: {}, predictor: model({}, { scaleMetric: 'memory' }) },
      "scaleMetric 'memory' is not supported in Knative mode",
      'Knative',
    ],
    ['cpu target 0', { predictor: model({}, { scaleMetric: 'cpu', scaleTarget: 0 }) }, 'the cpu target utilization percentage must be an integer from 1 to 100, got 0'],
    ['cpu target 101 (cpu is the default metric)', { predictor: model({}, { scaleTarget: 101 }) }, 'from 1 to 100, got 101'],
    ['memory target 0', { predictor: model({}, { scaleMetric: 'memory', scaleTarget: 0 }) }, 'the memory target must be at least 1 (MiB), got 0'],
    ['rps target 0', { annotations: KNATIVE, predictor: model({}, { scaleMetric: 'rps', scaleTarget: 0 }) }, 'scaleTarget for rps must be at least 1'],
    [
      'unknown autoscaler class',
      { annotations: { ...STANDARD, 'serving.kserve.io/autoscalerClass': 'kpa' } },
      "'kpa' is not a supported autoscaler class (supported: hpa, keda, external, none)",
    ],
    [
      'hpa with an External metric',
      { predictor: model({}, { autoScaling: { metrics: [{ type: 'External', external: { metric: { query: 'q' }, target: { value: 1 } } }] } }) },
      'spec.predictor.autoScaling.metrics[0]: invalid HPA metric source type with value [External],valid metric source types are Resource',
    ],
    [
      'hpa Resource metric without resource',
      { predictor: model({}, { autoScaling: { metrics: [{ type: 'Resource' }] } }) },
      'spec.predictor.autoScaling.metrics[0]: metricSpec.Resource is not set for resource metric source type',
    ],
    [
      'hpa utilization above 100',
      { predictor: model({}, { autoScaling: { metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 120 } } }] } }) },
      'the target utilization percentage should be a [1-100] integer',
    ],
    [
      'scaleMetricType Value',
      { predictor: model({}, { scaleMetricType: 'Value', scaleTarget: 5 }) },
      'spec.predictor.scaleMetricType: a resource metric target is Utilization or AverageValue, not Value',
    ],
    ['scaleMetricType AverageValue without a target', { predictor: model({}, { scaleMetricType: 'AverageValue' }) }, 'scaleMetricType AverageValue needs a scaleTarget'],
    [
      'keda with scaleMetric',
      { annotations: { ...STANDARD, ...KEDA }, predictor: model({}, { scaleMetric: 'cpu', autoScaling: { metrics: [CPU_60] } }) },
      'ScaleMetric is not supported for KEDA',
    ],
    ['keda without metrics', { annotations: { ...STANDARD, ...KEDA } }, 'spec.predictor.autoScaling.metrics: the keda autoscaler class needs at least one metric'],
    [
      'keda cpu AverageValue',
      {
        annotations: { ...STANDARD, ...KEDA },
        predictor: model({}, { autoScaling: { metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'AverageValue', averageValue: '1' } } }] } }),
      },
      'metrics[0]: the cpu target value type should be Utilization',
    ],
    [
      'keda memory below 1 MiB',
      {
        annotations: { ...STANDARD, ...KEDA },
        predictor: model({}, { autoScaling: { metrics: [{ type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '512Ki' } } }] } }),
      },
      'the memory target value should be greater than 1 MiB',
    ],
    [
      'keda External without a query',
      { annotations: { ...STANDARD, ...KEDA }, predictor: model({}, { autoScaling: { metrics: [{ type: 'External', external: { metric: {}, target: { value: 1 } } }] } }) },
      'metrics[0]: the query should not be empty',
    ],
    [
      'keda PodMetric without a threshold',
      { annotations: { ...STANDARD, ...KEDA }, predictor: model({}, { autoScaling: { metrics: [{ type: 'PodMetric', podmetric: { metric: { query: 'q' }, target: {} } }] } }) },
      'metrics[0]: the target threshold value should not be empty',
    ],
    [
      'keda External with a Value target and no value',
      {
        annotations: { ...STANDARD, ...KEDA },
        predictor: model({}, { autoScaling: { metrics: [{ type: 'External', external: { metric: { query: 'q' }, target: { type: 'AverageValue', value: 1 } } }] } }),
      },
      'metrics[0]: the AverageValue type should be set',
    ],
    ['keda in Knative mode', { annotations: { ...KNATIVE, ...KEDA } }, 'annotation serving.kserve.io/autoscalerClass: keda needs Standard mode'],
    [
      'deploymentStrategy in Knative mode',
      { annotations: KNATIVE, predictor: model({}, { deploymentStrategy: { type: 'Recreate' } }) },
      'spec.predictor.deploymentStrategy: customizing deploymentStrategy is only supported for raw deployment mode',
    ],
    [
      'autoScaling in Knative mode',
      { annotations: KNATIVE, predictor: model({}, { autoScaling: { metrics: [CPU_60] } }) },
      'spec.predictor.autoScaling is only supported in Standard mode',
    ],
    [
      'Knative HPA class with rps',
      { annotations: { ...KNATIVE, 'serving.kserve.io/autoscalerClass': 'hpa' }, predictor: model({}, { scaleMetric: 'rps' }) },
      "scaleMetric 'rps' is not supported in Knative mode with the HPA autoscaler class (supported: cpu, memory",
    ],
    [
      'unsupported storage scheme',
      { predictor: model({ storageUri: 'oci+native://registry/llama:3' }) },
      `spec.predictor.model.storageUri: unsupported storage URI scheme 'oci+native://' in 'oci+native://registry/llama:3' (supported: ${SUPPORTED})`,
    ],
    [
      'unsupported storage scheme on a legacy spec',
      { predictor: { onnx: { storageUri: 'oci+fetch://registry/model:1' } } },
      "spec.predictor.onnx.storageUri: unsupported storage URI scheme 'oci+fetch://'",
    ],
    [
      'unsupported STORAGE_URI of a custom container',
      { predictor: { containers: [{ name: 'kserve-container', env: [{ name: 'STORAGE_URI', value: 'oci+native://r/m:1' }] }] } },
      "env[STORAGE_URI]: unsupported storage URI scheme 'oci+native://'",
    ],
    ['empty storage URI', { predictor: model({ storageUri: '' }) }, 'spec.predictor.model.storageUri must not be empty'],
    ['PVC URI without a claim', { predictor: model({ storageUri: 'pvc:///x' }) }, "'pvc:///x' names no claim"],
    ['PVC URI leaving the claim', { predictor: model({ storageUri: 'pvc://claim/../../etc' }) }, "'pvc://claim/../../etc' has a '..' path segment"],
    ['storage spec with a gs:// URI', { predictor: model({ storageUri: 'gs://m', storage: { key: 'k' } }) }, 'must be an s3:// URI when spec.predictor.model.storage is set'],
    [
      'storage spec of type gs',
      { predictor: model({ storageUri: undefined, storage: { parameters: { type: 'gs' } } }) },
      "storage.parameters.type 'gs' is not supported (supported: s3, hdfs, webhdfs)",
    ],
    ['canary traffic above 100', { annotations: KNATIVE, predictor: model({}, { canaryTrafficPercent: 101 }) }, 'canaryTrafficPercent must be an integer from 0 to 100, got 101'],
    [
      'canary traffic in Standard',
      { predictor: model({}, { canaryTrafficPercent: 10 }) },
      'canaryTrafficPercent is only supported in Knative mode (this InferenceService is Standard)',
    ],
    ['transformer without containers', { transformer: { containers: [] } }, 'spec.transformer.containers must name at least one container'],
    [
      'transformer replicas',
      { transformer: { containers: [{ name: 't' }], minReplicas: 4, maxReplicas: 1 } },
      'spec.transformer.minReplicas (4) cannot be greater than maxReplicas (1)',
    ],
    [
      'built-in ART explainer',
      { explainer: { art: { type: 'SquareAttack', storageUri: 'gs://e' } } },
      'spec.explainer.art: built-in explainers are not supported by kserve-ts; give spec.explainer.containers',
    ],
    ['built-in alibi explainer', { explainer: { alibi: { type: 'AnchorTabular' } } }, 'spec.explainer.alibi: built-in explainers are not supported'],
    ['explainer without containers', { explainer: { minReplicas: 1 } }, 'spec.explainer.containers must name at least one container'],
    ['explainer replicas', { explainer: { containers: [{ name: 'e' }], minReplicas: 3, maxReplicas: 2 } }, 'spec.explainer.minReplicas (3) cannot be greater than maxReplicas (2)'],
    [
      'logger storage',
      { predictor: model({}, { logger: { storage: { path: '/logs', key: 'k' } } }) },
      'spec.predictor.logger.storage: request logs written to storage are not supported by kserve-ts',
    ],
    [
      'logger metadataAnnotations',
      { transformer: { containers: [{ name: 't' }], logger: { metadataAnnotations: ['a'] } } },
      'spec.transformer.logger.metadataAnnotations: not supported by kserve-ts: use logger.metadataHeaders',
    ],
    ['logger marshallerUrl', { explainer: { containers: [{ name: 'e' }], logger: { marshallerUrl: 'http://m' } } }, 'spec.explainer.logger.marshallerUrl: not supported'],
    ['logger batchSize', { predictor: model({}, { logger: { batchSize: 10 } }) }, 'spec.predictor.logger.batchSize: not supported by kserve-ts: each event is sent on its own'],
    ['logger mode', { predictor: model({}, { logger: { mode: 'both' } }) }, "spec.predictor.logger.mode 'both' is not a logger mode (use all, request, response)"],
    [
      'logger url scheme',
      { predictor: model({}, { logger: { url: 'kafka://broker/topic' } }) },
      "spec.predictor.logger.url 'kafka://broker/topic' must be an http:// or https:// URL",
    ],
    [
      'logger metadata header name',
      { predictor: model({}, { logger: { metadataHeaders: ['bad header'] } }) },
      "spec.predictor.logger.metadataHeaders: 'bad header' is not an HTTP header name",
    ],
    ['ModelMesh', { annotations: { [MODE]: 'ModelMesh' } }, 'ModelMesh is not supported by kserve-ts'],
    ['unknown mode', { annotations: { [MODE]: 'Serverful' } }, "annotation serving.kserve.io/deploymentMode: 'Serverful' is not a deployment mode (use Standard or Knative)"],
  ])('%s', (_name, shape, message, mode = 'Standard') => {
    const problems = validateInferenceService(isvc(shape), mode);
    expect(problems.join('\n')).toContain(message);
  });

  it('reports every problem, not only the first', () => {
    const problems = validateInferenceService(isvc({ name: 'Bad', predictor: model({ storageUri: 'oci+native://x' }, { minReplicas: -1 }) }), 'Standard');
    expect(problems).toHaveLength(3);
  });
});

describe('InferenceService validation on UPDATE: deploymentMode is immutable', () => {
  it.each<[string, Shape, Shape, string | undefined]>([
    [
      'status recorded, annotation changed',
      { status: { deploymentMode: 'Standard' } },
      { annotations: KNATIVE },
      "the deployment mode cannot be changed from 'Standard' to 'Knative'",
    ],
    ['status recorded with a legacy name, same mode', { status: { deploymentMode: 'RawDeployment' } }, { annotations: STANDARD }, undefined],
    ['status recorded, annotation removed (status still wins)', { status: { deploymentMode: 'Standard' } }, { annotations: {} }, undefined],
    ['no status yet, annotation changed', { annotations: KNATIVE }, { annotations: STANDARD }, "cannot be changed from 'Knative' to 'Standard'"],
    ['no status yet, annotation removed', { annotations: KNATIVE }, { annotations: {} }, "cannot be changed from 'Knative' to '(removed)'"],
    ['no status, no old annotation', { annotations: {} }, { annotations: STANDARD }, undefined],
  ])('%s', (_name, oldShape, newShape, message) => {
    const problems = validateInferenceService(isvc(newShape), 'Knative', isvc(oldShape));
    if (message === undefined) expect(problems).toEqual([]);
    else expect(problems.join('\n')).toContain(message);
  });
});

describe('validating webhook', () => {
  const config = { ...fakeCluster().config, defaultDeploymentMode: 'Standard' as const };
  const review = (operation: Operation, object: InferenceService, oldObject?: InferenceService) =>
    isvcValidatingWebhook(() => config)({
      uid: 'u',
      kind: { group: 'serving.kserve.io', version: 'v1beta1', kind: 'InferenceService' },
      name: object.metadata.name,
      namespace: 'default',
      operation,
      object,
      ...(oldObject ? { oldObject } : {}),
    });

  it('denies with 403 Forbidden and all messages', async () => {
    expect(await review('CREATE', isvc({ predictor: model({ storageUri: 'oci+native://x' }, { minReplicas: -1 }) }))).toEqual({
      allowed: false,
      status: {
        code: 403,
        reason: 'Forbidden',
        message: `InferenceService 'iris' is invalid: spec.predictor.model.storageUri: unsupported storage URI scheme 'oci+native://' in 'oci+native://x' (supported: ${SUPPORTED}); spec.predictor.minReplicas cannot be less than 0, got -1`,
      },
    });
  });

  it('allows a valid object', async () => {
    expect(await review('CREATE', isvc())).toEqual({ allowed: true });
  });

  it('never blocks the update that completes a deletion', async () => {
    const deleting = isvc({ name: 'Invalid' });
    // As on the wire: a timestamp string.
    deleting.metadata.deletionTimestamp = new Date().toISOString() as unknown as Date;
    expect(await review('UPDATE', deleting, isvc())).toEqual({ allowed: true });
  });

  it('checks mode immutability against the old object', async () => {
    const verdict = await review('UPDATE', isvc({ annotations: KNATIVE }), isvc({ status: { deploymentMode: 'Standard' } }));
    expect(verdict.allowed).toBe(false);
  });
});

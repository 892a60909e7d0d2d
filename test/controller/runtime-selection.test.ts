import { describe, expect, it } from 'vitest';
import type { ModelSpec } from '../../controller/api/inference-service.js';
import type { ServingRuntime, ServingRuntimeSpec } from '../../controller/api/serving-runtime.js';
import { orderCandidates, selectRuntime } from '../../controller/runtime-selection.js';

function rt(name: string, spec: Partial<ServingRuntimeSpec>, created = '2026-01-01T00:00:00Z', cluster = false): ServingRuntime {
  return {
    apiVersion: 'serving.kserve.io/v1alpha1',
    kind: cluster ? 'ClusterServingRuntime' : 'ServingRuntime',
    metadata: { name, creationTimestamp: new Date(created) },
    spec: { containers: [{ name: 'kserve-container', image: `${name}:1` }], ...spec },
  };
}
const fmt = (name: string, extra: { version?: string; autoSelect?: boolean; priority?: number } = {}) => ({
  name,
  autoSelect: true,
  ...extra,
});
const model = (name: string, extra: Partial<ModelSpec> = {}, version?: string): ModelSpec => ({
  modelFormat: version === undefined ? { name } : { name, version },
  ...extra,
});

// KServe's shipped cluster runtimes that matter for these examples (config/runtimes).
const sklearnserver = rt(
  'kserve-sklearnserver',
  { protocolVersions: ['v1', 'v2'], supportedModelFormats: [fmt('sklearn', { version: '1', priority: 1 })] },
  '2026-01-01T00:00:00Z',
  true,
);
const mlserver = rt(
  'kserve-mlserver',
  { protocolVersions: ['v2'], supportedModelFormats: [fmt('sklearn', { version: '0', priority: 2 }), fmt('sklearn', { version: '1', priority: 2 })] },
  '2026-01-01T00:00:00Z',
  true,
);
const triton = rt(
  'kserve-tritonserver',
  {
    protocolVersions: ['v2', 'grpc-v2'],
    supportedModelFormats: [fmt('onnx', { version: '1', priority: 1 }), fmt('tensorflow', { version: '2', priority: 1 }), fmt('pytorch', { version: '1', autoSelect: false })],
  },
  '2026-01-01T00:00:00Z',
  true,
);
const tfserving = rt(
  'kserve-tensorflow-serving',
  { protocolVersions: ['v1', 'grpc-v1'], supportedModelFormats: [fmt('tensorflow', { version: '1', priority: 2 }), fmt('tensorflow', { version: '2', priority: 2 })] },
  '2026-01-01T00:00:00Z',
  true,
);

// kserve-ts's runtimes (charts/kserve-ts-runtimes): the same formats, one built for NVIDIA GPUs.
const gpuContainer = (resource: string) => [{ name: 'kserve-container', image: 'kserve-ts-server-cuda:1', resources: { limits: { cpu: '4', [resource]: '1' } } }];
const cpuOnnx = rt(
  'kserve-ts-onnx',
  { protocolVersions: ['v1', 'v2', 'grpc-v2'], supportedModelFormats: [fmt('onnx', { version: '1', priority: 3 })] },
  '2026-01-01T00:00:00Z',
  true,
);
const gpuOnnx = rt(
  'kserve-ts-onnx-gpu',
  { protocolVersions: ['v1', 'v2', 'grpc-v2'], supportedModelFormats: [fmt('onnx', { version: '1', priority: 3 })], containers: gpuContainer('nvidia.com/gpu') },
  '2026-01-01T00:00:00Z',
  true,
);
// Newer, so KServe's order alone would put it first.
const newerGpuOnnx: ServingRuntime = { ...gpuOnnx, metadata: { ...gpuOnnx.metadata, creationTimestamp: new Date('2026-06-01T00:00:00Z') } };
const amdOnnx = rt(
  'rocm-onnx',
  { protocolVersions: ['v1', 'v2'], supportedModelFormats: [fmt('onnx', { priority: 9 })], containers: gpuContainer('amd.com/gpu') },
  '2026-01-01T00:00:00Z',
  true,
);
const gpus = (n: string | number, where: 'limits' | 'requests' = 'limits'): Partial<ModelSpec> => ({ resources: { [where]: { cpu: '1', 'nvidia.com/gpu': n } } });

type Row = [string, ModelSpec, { namespaced?: ServingRuntime[]; cluster?: ServingRuntime[] }, string];

describe('runtime selection (KServe rules, table)', () => {
  const rows: Row[] = [
    // Explicit runtime.
    [
      'explicit: namespaced wins over a cluster runtime of the same name',
      model('onnx', { runtime: 'r' }),
      { namespaced: [rt('r', { supportedModelFormats: [fmt('onnx')] })], cluster: [rt('r', { supportedModelFormats: [fmt('onnx')] }, undefined, true)] },
      'namespace/r',
    ],
    [
      'explicit: falls back to the cluster runtime',
      model('onnx', { runtime: 'r' }),
      { cluster: [rt('r', { supportedModelFormats: [fmt('onnx')] }, undefined, true)] },
      'cluster/r',
    ],
    ['explicit: not found', model('onnx', { runtime: 'missing' }), { cluster: [triton] }, 'RuntimeNotRecognized'],
    ['explicit: disabled', model('onnx', { runtime: 'r' }), { namespaced: [rt('r', { disabled: true, supportedModelFormats: [fmt('onnx')] })] }, 'RuntimeDisabled'],
    [
      'explicit: protocol not supported',
      model('onnx', { runtime: 'r', protocolVersion: 'grpc-v2' }),
      { namespaced: [rt('r', { protocolVersions: ['v1'], supportedModelFormats: [fmt('onnx')] })] },
      'NoSupportingRuntime',
    ],
    ['explicit: format not supported', model('tensorflow', { runtime: 'r' }), { namespaced: [rt('r', { supportedModelFormats: [fmt('onnx')] })] }, 'NoSupportingRuntime'],
    ['explicit: autoSelect is ignored', model('pytorch', { runtime: 'kserve-tritonserver' }), { cluster: [triton] }, 'cluster/kserve-tritonserver'],
    [
      'explicit: no protocol on the model skips the protocol check',
      model('onnx', { runtime: 'r' }),
      { namespaced: [rt('r', { protocolVersions: ['grpc-v2'], supportedModelFormats: [fmt('onnx')] })] },
      'namespace/r',
    ],
    // Auto-selection filters.
    ['auto: autoSelect false is not a candidate', model('pytorch', { protocolVersion: 'v2' }), { cluster: [triton] }, 'NoSupportingRuntime'],
    ['auto: protocol defaults to v1 (triton is v2-only)', model('onnx'), { cluster: [triton] }, 'NoSupportingRuntime'],
    ['auto: explicit v2 finds triton', model('onnx', { protocolVersion: 'v2' }), { cluster: [triton] }, 'cluster/kserve-tritonserver'],
    [
      'auto: empty protocolVersions supports every protocol',
      model('onnx', { protocolVersion: 'grpc-v2' }),
      { namespaced: [rt('any', { supportedModelFormats: [fmt('onnx')] })] },
      'namespace/any',
    ],
    ['auto: unversioned model matches a versioned format', model('tensorflow'), { cluster: [tfserving] }, 'cluster/kserve-tensorflow-serving'],
    ['auto: versioned model needs the exact version', model('tensorflow', {}, '3'), { cluster: [tfserving] }, 'NoSupportingRuntime'],
    ['auto: versioned model with the exact version', model('tensorflow', {}, '2'), { cluster: [tfserving] }, 'cluster/kserve-tensorflow-serving'],
    ['auto: "2.0" is not "2"', model('tensorflow', {}, '2.0'), { cluster: [tfserving] }, 'NoSupportingRuntime'],
    ['auto: format names are case-sensitive labels', model('ONNX', { protocolVersion: 'v2' }), { cluster: [triton] }, 'NoSupportingRuntime'],
    [
      'auto: disabled runtimes are skipped',
      model('onnx'),
      { namespaced: [rt('off', { disabled: true, supportedModelFormats: [fmt('onnx')] }), rt('on', { supportedModelFormats: [fmt('onnx')] })] },
      'namespace/on',
    ],
    ['auto: multi-model runtimes are skipped', model('onnx'), { namespaced: [rt('mm', { multiModel: true, supportedModelFormats: [fmt('onnx')] })] }, 'NoSupportingRuntime'],
    // Ordering.
    [
      'auto: a namespaced match beats any cluster runtime whatever its priority',
      model('onnx'),
      { namespaced: [rt('ns', { supportedModelFormats: [fmt('onnx')] })], cluster: [rt('c', { supportedModelFormats: [fmt('onnx', { priority: 99 })] }, undefined, true)] },
      'namespace/ns',
    ],
    [
      'auto: higher priority wins',
      model('onnx'),
      { namespaced: [rt('low', { supportedModelFormats: [fmt('onnx', { priority: 1 })] }), rt('high', { supportedModelFormats: [fmt('onnx', { priority: 5 })] })] },
      'namespace/high',
    ],
    [
      'auto: a priority beats none',
      model('onnx'),
      { namespaced: [rt('a-none', { supportedModelFormats: [fmt('onnx')] }, '2026-06-01T00:00:00Z'), rt('b-prio', { supportedModelFormats: [fmt('onnx', { priority: 1 })] })] },
      'namespace/b-prio',
    ],
    [
      'auto: lower protocol first when priorities tie',
      model('onnx', { protocolVersion: 'v2' }),
      {
        namespaced: [
          rt('grpc', { protocolVersions: ['grpc-v2', 'v2'], supportedModelFormats: [fmt('onnx')] }),
          rt('rest', { protocolVersions: ['v2'], supportedModelFormats: [fmt('onnx')] }),
        ],
      },
      'namespace/grpc',
    ],
    [
      'auto: lowest protocol of the list is what counts',
      model('onnx', { protocolVersion: 'v2' }),
      {
        namespaced: [
          rt('v2only', { protocolVersions: ['v2'], supportedModelFormats: [fmt('onnx')] }),
          rt('v1v2', { protocolVersions: ['v2', 'v1'], supportedModelFormats: [fmt('onnx')] }),
        ],
      },
      'namespace/v1v2',
    ],
    [
      'auto: newest first when protocol and priority tie',
      model('onnx'),
      { namespaced: [rt('old', { supportedModelFormats: [fmt('onnx')] }, '2026-01-01T00:00:00Z'), rt('new', { supportedModelFormats: [fmt('onnx')] }, '2026-02-01T00:00:00Z')] },
      'namespace/new',
    ],
    [
      'auto: name ascending as the last tie-break',
      model('onnx'),
      { namespaced: [rt('zeta', { supportedModelFormats: [fmt('onnx')] }), rt('alpha', { supportedModelFormats: [fmt('onnx')] })] },
      'namespace/alpha',
    ],
    [
      'auto: priority is read from the first entry with the format name, version ignored',
      model('sklearn', { protocolVersion: 'v2' }),
      { cluster: [sklearnserver, mlserver] },
      'cluster/kserve-mlserver',
    ],
    // Accelerators (kserve-ts's rule: the runtime built for the model's accelerator).
    ['accelerator: a predictor requesting nvidia.com/gpu gets the runtime built for it', model('onnx', gpus('1')), { cluster: [cpuOnnx, gpuOnnx] }, 'cluster/kserve-ts-onnx-gpu'],
    ['accelerator: a GPU request in requests counts as in limits', model('onnx', gpus(1, 'requests')), { cluster: [cpuOnnx, gpuOnnx] }, 'cluster/kserve-ts-onnx-gpu'],
    ['accelerator: a CPU predictor never gets a runtime that requests a GPU', model('onnx'), { cluster: [newerGpuOnnx, cpuOnnx] }, 'cluster/kserve-ts-onnx'],
    ['accelerator: "0" GPUs asks for none', model('onnx', gpus('0')), { cluster: [newerGpuOnnx, cpuOnnx] }, 'cluster/kserve-ts-onnx'],
    ['accelerator: a CPU predictor with only a GPU runtime has none', model('onnx'), { cluster: [gpuOnnx] }, 'NoSupportingRuntime'],
    ['accelerator: a GPU predictor without a GPU runtime takes the others as before', model('onnx', gpus('1')), { cluster: [cpuOnnx] }, 'cluster/kserve-ts-onnx'],
    [
      'accelerator: the GPU runtime comes before a higher priority without one',
      model('onnx', gpus('2')),
      { cluster: [rt('prio9', { supportedModelFormats: [fmt('onnx', { priority: 9 })] }, '2026-01-01T00:00:00Z', true), gpuOnnx] },
      'cluster/kserve-ts-onnx-gpu',
    ],
    ['accelerator: a runtime for another accelerator is skipped whatever its priority', model('onnx', gpus('1')), { cluster: [amdOnnx, cpuOnnx] }, 'cluster/kserve-ts-onnx'],
    [
      'accelerator: namespaced before cluster still holds',
      model('onnx', gpus('1')),
      { namespaced: [rt('team', { supportedModelFormats: [fmt('onnx')] })], cluster: [gpuOnnx] },
      'namespace/team',
    ],
    ['accelerator: an explicit runtime is taken as named', model('onnx', { runtime: 'kserve-ts-onnx-gpu' }), { cluster: [cpuOnnx, gpuOnnx] }, 'cluster/kserve-ts-onnx-gpu'],
    // KServe's documented examples.
    ['KServe example: sklearn with v1 → sklearnserver (mlserver lacks v1)', model('sklearn'), { cluster: [mlserver, sklearnserver] }, 'cluster/kserve-sklearnserver'],
    ['no runtime at all', model('onnx'), {}, 'NoSupportingRuntime'],
  ];

  it.each(rows)('%s', (_name, m, c, expected) => {
    const result = selectRuntime(m, { namespaced: c.namespaced ?? [], cluster: c.cluster ?? [] });
    const got = result.ok ? `${result.scope}/${result.runtime.metadata.name}` : result.reason;
    expect(got).toBe(expected);
  });

  it('failure reasons carry the anchor messages', () => {
    const r = selectRuntime(model('onnx'), { namespaced: [], cluster: [] });
    expect(r).toEqual({ ok: false, reason: 'NoSupportingRuntime', message: 'No runtime found to support specified framework/version' });
    const d = selectRuntime(model('onnx', { runtime: 'x' }), { namespaced: [], cluster: [] });
    expect(d).toMatchObject({ reason: 'RuntimeNotRecognized' });
  });

  it('a model without protocolVersion gets the runtime lowest protocol', () => {
    const r = selectRuntime(model('onnx', { runtime: 'kserve-tritonserver' }), { namespaced: [], cluster: [triton] });
    expect(r.ok && r.protocolVersion).toBe('v2');
    const v = selectRuntime(model('onnx', { protocolVersion: 'grpc-v2' }), { namespaced: [], cluster: [triton] });
    expect(v.ok && v.protocolVersion).toBe('grpc-v2');
  });

  it('orders a mixed list deterministically', () => {
    const list = [
      rt('c', { supportedModelFormats: [fmt('onnx')] }, '2026-03-01T00:00:00Z'),
      rt('b', { supportedModelFormats: [fmt('onnx', { priority: 1 })] }),
      rt('a', { supportedModelFormats: [fmt('onnx', { priority: 3 })] }),
      rt('d', { protocolVersions: ['grpc-v2'], supportedModelFormats: [fmt('onnx')] }),
      rt('e', { supportedModelFormats: [fmt('onnx')] }, '2026-01-01T00:00:00Z'),
    ];
    expect(orderCandidates(list, 'onnx').map((r) => r.metadata.name)).toEqual(['a', 'b', 'd', 'c', 'e']);
  });
});

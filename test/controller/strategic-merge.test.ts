/**
 * KServe's merge of a ServingRuntime with an InferenceService (strategic merge patch over
 * corev1.Container / corev1.PodSpec), as a table: runtime, ISVC overlay, expected result.
 */
import type { V1Container } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { mergeContainer, mergePodSpec } from '../../controller/reconcile/strategic-merge.js';

const runtime: V1Container = {
  name: 'kserve-container',
  image: 'server:1',
  args: ['--model_dir=/mnt/models'],
  env: [
    { name: 'A', value: 'runtime' },
    { name: 'B', value: 'keep' },
  ],
  ports: [{ containerPort: 8080, name: 'http1', protocol: 'TCP' }],
  resources: { requests: { cpu: '1', memory: '1Gi' }, limits: { cpu: '2' } },
  readinessProbe: { httpGet: { path: '/ready', port: 8080 }, periodSeconds: 10 },
  volumeMounts: [{ name: 'a', mountPath: '/a' }],
};

describe('mergeContainer (KServe MergeRuntimeContainers)', () => {
  it.each<[string, Partial<V1Container>, Partial<V1Container>]>([
    [
      'env merges by name, new names appended',
      {
        env: [
          { name: 'A', value: 'isvc' },
          { name: 'C', value: 'new' },
        ],
      },
      {
        env: [
          { name: 'A', value: 'isvc' },
          { name: 'B', value: 'keep' },
          { name: 'C', value: 'new' },
        ],
      },
    ],
    [
      'an env valueFrom replaces the runtime value (both would be invalid)',
      { env: [{ name: 'A', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }] },
      {
        env: [
          { name: 'A', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } },
          { name: 'B', value: 'keep' },
        ],
      },
    ],
    ['args are appended, not replaced', { args: ['--x'] }, { args: ['--model_dir=/mnt/models', '--x'] }],
    ['resources merge key by key', { resources: { limits: { memory: '4Gi' } } }, { resources: { requests: { cpu: '1', memory: '1Gi' }, limits: { cpu: '2', memory: '4Gi' } } }],
    [
      'ports merge by containerPort',
      {
        ports: [
          { containerPort: 8080, name: 'h' },
          { containerPort: 9000, name: 'grpc' },
        ],
      },
      {
        ports: [
          { containerPort: 8080, name: 'h', protocol: 'TCP' },
          { containerPort: 9000, name: 'grpc' },
        ],
      },
    ],
    [
      'volumeMounts merge by mountPath',
      {
        volumeMounts: [
          { name: 'a2', mountPath: '/a' },
          { name: 'b', mountPath: '/b' },
        ],
      },
      {
        volumeMounts: [
          { name: 'a2', mountPath: '/a' },
          { name: 'b', mountPath: '/b' },
        ],
      },
    ],
    ['probes merge field by field', { readinessProbe: { periodSeconds: 3 } }, { readinessProbe: { httpGet: { path: '/ready', port: 8080 }, periodSeconds: 3 } }],
    [
      'lists without a merge key are replaced',
      { command: ['serve'], envFrom: [{ configMapRef: { name: 'c' } }] },
      { command: ['serve'], envFrom: [{ configMapRef: { name: 'c' } }] },
    ],
    ['the runtime name is kept', { name: 'other', image: 'mine:2' }, { name: 'kserve-container', image: 'mine:2' }],
  ])('%s', (_name, isvc, expected) => {
    const merged = mergeContainer(runtime, isvc);
    expect(merged).toMatchObject(expected);
    for (const [k, v] of Object.entries(expected)) expect(merged[k as keyof V1Container]).toEqual(v);
  });

  it('does not modify its inputs', () => {
    const before = structuredClone(runtime);
    const isvc = { env: [{ name: 'A', value: 'x' }] };
    mergeContainer(runtime, isvc);
    expect(runtime).toEqual(before);
    expect(isvc).toEqual({ env: [{ name: 'A', value: 'x' }] });
  });
});

describe('mergePodSpec (KServe MergePodSpec)', () => {
  it.each<[string, Record<string, unknown>, Record<string, unknown>, Record<string, unknown>]>([
    ['nodeSelector maps merge', { nodeSelector: { a: '1', b: '2' } }, { nodeSelector: { b: '3' } }, { nodeSelector: { a: '1', b: '3' } }],
    [
      'volumes merge by name',
      { volumes: [{ name: 'v', emptyDir: {} }] },
      { volumes: [{ name: 'w', emptyDir: {} }] },
      {
        volumes: [
          { name: 'v', emptyDir: {} },
          { name: 'w', emptyDir: {} },
        ],
      },
    ],
    [
      'imagePullSecrets merge by name',
      { imagePullSecrets: [{ name: 'r' }] },
      { imagePullSecrets: [{ name: 'r' }, { name: 'u' }] },
      { imagePullSecrets: [{ name: 'r' }, { name: 'u' }] },
    ],
    [
      'tolerations (no merge key) are replaced',
      { tolerations: [{ key: 'a', operator: 'Exists' }] },
      { tolerations: [{ key: 'b', operator: 'Exists' }] },
      { tolerations: [{ key: 'b', operator: 'Exists' }] },
    ],
    ['fields the runtime lacks pass through', {}, { securityContext: { runAsUser: 1 }, priorityClassName: 'p' }, { securityContext: { runAsUser: 1 }, priorityClassName: 'p' }],
    ['null deletes a runtime field', { schedulerName: 'custom', nodeSelector: { a: '1' } }, { schedulerName: null }, { nodeSelector: { a: '1' } }],
  ])('%s', (_name, base, overlay, expected) => {
    expect(mergePodSpec(base, overlay)).toEqual(expected);
  });
});

/**
 * The InferenceGraph validator: KServe's cases (`inference_graph_validation_test.go`) with
 * its exact messages, the rules kserve-ts adds (node references, cycles), and the admission
 * handler's answers (403 with the bare message, malformed objects 400, deletions let through).
 */
import { describe, expect, it } from 'vitest';
import type { InferenceGraph, InferenceRouter } from '../../../controller/api/inference-graph.js';
import { graphValidatingWebhook } from '../../../controller/webhooks/graph/graph-webhook.js';
import { graphMessages, validateInferenceGraph } from '../../../controller/webhooks/graph/graph-validator.js';
import type { AdmissionRequest } from '../../../controller/webhooks/admission.js';

const graph = (name: string, nodes: Record<string, InferenceRouter>): InferenceGraph => ({ metadata: { name, namespace: 'default' }, spec: { nodes } });
const root = (r: InferenceRouter) => ({ root: r });
const seq = (steps: InferenceRouter['steps']): InferenceRouter => ({ routerType: 'Sequence', steps });

describe("KServe's rules and messages", () => {
  it.each([
    ['simple', graph('foo-bar', root(seq([{ serviceName: 'a' }]))), undefined],
    ['alphanumeric model name', graph('Abc-123', root(seq([]))), graphMessages.invalidName('Abc-123')],
    ['name starts with number', graph('4abc-3', root(seq([]))), graphMessages.invalidName('4abc-3')],
    ['name starts with dash', graph('-abc-3', root(seq([]))), graphMessages.invalidName('-abc-3')],
    ['name ends with dash', graph('abc-3-', root(seq([]))), graphMessages.invalidName('abc-3-')],
    ['name includes dot', graph('abc.123', root(seq([]))), graphMessages.invalidName('abc.123')],
    ['name includes spaces', graph('abc 123', root(seq([]))), graphMessages.invalidName('abc 123')],
    ['without root node', graph('foo-bar', { other: seq([]) }), graphMessages.rootNotFound()],
    ['with root node', graph('foo-bar', root(seq([]))), undefined],
    [
      'invalid weight for splitter',
      graph(
        'foo-bar',
        root({
          routerType: 'Splitter',
          steps: [
            { serviceName: 'a', weight: 30 },
            { serviceName: 'b', weight: 50 },
          ],
        }),
      ),
      graphMessages.invalidWeight('foo-bar', 'root'),
    ],
    [
      'weight missing in splitter',
      graph('foo-bar', root({ routerType: 'Splitter', steps: [{ serviceName: 'test' }] })),
      graphMessages.weightNotProvided('foo-bar', 'root', 'test'),
    ],
    [
      'simple splitter',
      graph(
        'foo-bar',
        root({
          routerType: 'Splitter',
          steps: [
            { serviceName: 'a', weight: 30 },
            { serviceName: 'b', weight: 70 },
          ],
        }),
      ),
      undefined,
    ],
    ['step inference target not provided', graph('foo-bar', root(seq([{}]))), graphMessages.targetNotProvided(0, '', 'root', 'foo-bar')],
    ['invalid inference graph target', graph('foo-bar', root(seq([{ serviceName: 'a', serviceUrl: 'http://b' }]))), graphMessages.invalidTarget(0, '', 'root', 'foo-bar')],
    [
      'duplicate step name',
      graph(
        'foo-bar',
        root(
          seq([
            { name: 'step1', serviceName: 'a' },
            { name: 'step1', serviceName: 'b' },
          ]),
        ),
      ),
      graphMessages.duplicateStepName('root', 'foo-bar', 'step1'),
    ],
  ])('%s', (_name, ig, want) => {
    expect(validateInferenceGraph(ig)).toBe(want);
  });

  it('says them word for word as KServe does', () => {
    expect(graphMessages.rootNotFound()).toBe("root node not found, InferenceGraph needs a node with name 'root' as the root node of the graph");
    expect(graphMessages.invalidWeight('g', 'root')).toBe('InferenceGraph[g] Node[root] splitter node: the sum of traffic weights for all routing targets should be 100');
    expect(graphMessages.invalidName('A')).toBe(
      `The InferenceGraph "A" is invalid: a InferenceGraph name must consist of lower case alphanumeric characters or '-', and must start with alphabetical character. (e.g. "my-name" or "abc-123", regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
    );
  });
});

describe('beyond KServe', () => {
  it.each([
    ['hpa', undefined],
    ['none', undefined],
    ['keda', graphMessages.autoscalerClass('keda')],
    ['kpa', graphMessages.autoscalerClass('kpa')],
  ])('the router autoscaler class %s', (cls, want) => {
    const g = graph('g', root(seq([{ serviceName: 'a' }])));
    expect(validateInferenceGraph({ ...g, metadata: { ...g.metadata, annotations: { 'serving.kserve.io/autoscalerClass': cls } } })).toBe(want);
    if (cls === 'keda') expect(want).toContain('keda is not supported for an InferenceGraph');
  });

  it('a step must name a node the graph has', () => {
    expect(validateInferenceGraph(graph('g', root(seq([{ name: 'n', nodeName: 'missing' }]))))).toBe(graphMessages.unknownNode(0, 'n', 'root', 'g', 'missing'));
  });

  it('no node may reach itself', () => {
    const ig = graph('g', { root: seq([{ nodeName: 'a' }]), a: seq([{ nodeName: 'b' }]), b: { routerType: 'Ensemble', steps: [{ serviceName: 'x' }, { nodeName: 'a' }] } });
    expect(validateInferenceGraph(ig)).toBe(graphMessages.cycle('g', ['a', 'b', 'a']));
    expect(validateInferenceGraph(graph('g', { root: seq([{ nodeName: 'root' }]) }))).toBe(graphMessages.cycle('g', ['root', 'root']));
    // Shared sub-graphs are not cycles.
    expect(validateInferenceGraph(graph('g', { root: { routerType: 'Ensemble', steps: [{ nodeName: 'a' }, { nodeName: 'a' }] }, a: seq([{ serviceName: 'x' }]) }))).toBeUndefined();
  });
});

describe('the admission handler', () => {
  const request = (object: unknown, operation: AdmissionRequest['operation'] = 'CREATE'): AdmissionRequest => ({
    uid: 'u1',
    kind: { group: 'serving.kserve.io', version: 'v1alpha1', kind: 'InferenceGraph' },
    operation,
    object,
  });
  const handler = graphValidatingWebhook();

  it('refuses with 403 and the bare message, as controller-runtime answers for KServe', async () => {
    expect(await handler(request(graph('g', { other: seq([]) })))).toEqual({ allowed: false, status: { code: 403, reason: 'Forbidden', message: graphMessages.rootNotFound() } });
    expect(await handler(request(graph('g', root(seq([{ serviceName: 'a' }])))))).toEqual({ allowed: true });
  });

  it('lets a deletion finish and ignores DELETE', async () => {
    const deleting = { ...graph('g', { other: seq([]) }), metadata: { name: 'g', deletionTimestamp: '2026-01-01T00:00:00Z' } };
    expect(await handler(request(deleting, 'UPDATE'))).toEqual({ allowed: true });
    expect(await handler(request(undefined, 'DELETE'))).toEqual({ allowed: true });
  });

  it('a field of the wrong JSON type is a 400 naming it, before any rule', async () => {
    await expect(handler(request({ metadata: { name: 'g' }, spec: { nodes: { root: { routerType: 'Sequence', steps: [{ weight: '50' }] } } } }))).rejects.toThrow(
      'spec.nodes["root"].steps[0].weight must be a number, got string',
    );
  });
});

/**
 * The CRDs have one description each (controller/api/*-crd.ts): the YAML kubectl, the chart
 * and --install-crds read is written from it, the TypeScript types the controller reads have
 * exactly its fields, and the admission shapes and the pod-field split are derived from it.
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { type OpenApiSchema, propertyNames, schemaAt } from '../../controller/api/crd.js';
import { INFERENCE_GRAPH_SPEC_SCHEMA } from '../../controller/api/inference-graph-crd.js';
import { TRAINED_MODEL_SPEC_SCHEMA } from '../../controller/api/trained-model-crd.js';
import { INFERENCE_SERVICE_SPEC_SCHEMA, POD_FIELDS } from '../../controller/api/inference-service-crd.js';
import { LEGACY_FRAMEWORK_FIELDS } from '../../controller/api/model-spec.js';
import { SERVING_RUNTIME_SPEC_SCHEMA } from '../../controller/api/serving-runtime-crd.js';
import { componentPodSpec } from '../../controller/reconcile/component-pod-spec.js';
import { INFERENCE_SERVICE_SHAPE, shapeProblems } from '../../controller/webhooks/object-shape.js';
import { CRD_DIR, renderCrdFiles } from '../../scripts/crds.js';
import { ROOT } from '../helpers/server.js';

describe('the CRD files', () => {
  it.each([...renderCrdFiles()])('%s is written from its description (run `npm run crds` after changing it)', (file, text) => {
    expect(readFileSync(path.join(ROOT, file), 'utf8')).toBe(text);
  });

  it('are every CRD shipped, in controller/crds and (linked) in the CRD chart', () => {
    const written = [...renderCrdFiles().keys()].map((f) => path.basename(f)).sort();
    for (const dir of [CRD_DIR, 'charts/kserve-ts-crd/files']) {
      expect(readdirSync(path.join(ROOT, dir)).sort(), dir).toEqual(written);
    }
    for (const f of written) expect(readFileSync(path.join(ROOT, 'charts/kserve-ts-crd/files', f), 'utf8')).toBe(renderCrdFiles().get(path.join(CRD_DIR, f)));
  });
});

/**
 * Property names of the TypeScript types, read with the compiler: a field in the type but
 * not in the schema would be pruned by the API server before the controller reads it; one in
 * the schema but not in the type is read by no code that type-checks.
 */
function typeProperties(file: string, names: readonly string[]): Map<string, string[]> {
  const program = ts.createProgram([path.join(ROOT, file)], {
    strict: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    skipLibCheck: true,
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(path.join(ROOT, file))!;
  const out = new Map<string, string[]>();
  const symbols = checker.getExportsOfModule(checker.getSymbolAtLocation(source)!);
  for (const name of names) {
    let symbol = symbols.find((s) => s.name === name);
    if (!symbol) throw new Error(`${name} is not exported by ${file}`);
    if (symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
    const type = checker.getDeclaredTypeOfSymbol(symbol);
    out.set(
      name,
      checker
        .getPropertiesOfType(type)
        .map((p) => p.name)
        .sort(),
    );
  }
  return out;
}

interface Pair {
  /** The TypeScript type. */
  type: string;
  schema: OpenApiSchema;
  path: readonly string[];
  /** For a schema that keeps unknown fields: the Kubernetes type whose fields those are. */
  embeds?: string;
}

/** One `autoScaling.metrics` item, under a made-up property so a path can reach it. */
const METRICS: OpenApiSchema = { properties: { m: schemaAt(INFERENCE_SERVICE_SPEC_SCHEMA, ['predictor', 'autoScaling', 'metrics'])!.items! } };

const ISVC_PAIRS: Pair[] = [
  { type: 'InferenceServiceSpec', schema: INFERENCE_SERVICE_SPEC_SCHEMA, path: [] },
  { type: 'PredictorSpec', schema: INFERENCE_SERVICE_SPEC_SCHEMA, path: ['predictor'] },
  { type: 'TransformerSpec', schema: INFERENCE_SERVICE_SPEC_SCHEMA, path: ['transformer'] },
  { type: 'ExplainerSpec', schema: INFERENCE_SERVICE_SPEC_SCHEMA, path: ['explainer'] },
  { type: 'ModelSpec', schema: INFERENCE_SERVICE_SPEC_SCHEMA, path: ['predictor', 'model'], embeds: 'V1Container' },
  { type: 'ModelFormat', schema: INFERENCE_SERVICE_SPEC_SCHEMA, path: ['predictor', 'model', 'modelFormat'] },
  { type: 'StorageSpec', schema: INFERENCE_SERVICE_SPEC_SCHEMA, path: ['predictor', 'model', 'storage'] },
  ...LEGACY_FRAMEWORK_FIELDS.map((f) => ({ type: 'LegacyFrameworkSpec', schema: INFERENCE_SERVICE_SPEC_SCHEMA, path: ['predictor', f], embeds: 'V1Container' })),
  ...['predictor', 'transformer', 'explainer'].map((c) => ({ type: 'LoggerSpec', schema: INFERENCE_SERVICE_SPEC_SCHEMA, path: [c, 'logger'] })),
  ...['predictor', 'transformer', 'explainer'].map((c) => ({ type: 'AutoScalingSpec', schema: INFERENCE_SERVICE_SPEC_SCHEMA, path: [c, 'autoScaling'] })),
  { type: 'MetricsSpec', schema: METRICS, path: ['m'] },
  { type: 'ResourceMetricSource', schema: METRICS, path: ['m', 'resource'] },
  { type: 'ExternalMetricSource', schema: METRICS, path: ['m', 'external'] },
  { type: 'PodMetricSource', schema: METRICS, path: ['m', 'podmetric'] },
  ...['resource', 'external', 'podmetric'].map((source) => ({ type: 'MetricTarget', schema: METRICS, path: ['m', source, 'target'] })),
];

const GRAPH_PAIRS: Pair[] = [
  { type: 'InferenceGraphSpec', schema: INFERENCE_GRAPH_SPEC_SCHEMA, path: [] },
  { type: 'InferenceRouter', schema: { properties: { r: INFERENCE_GRAPH_SPEC_SCHEMA.properties!['nodes']!.additionalProperties! } }, path: ['r'] },
  { type: 'InferenceStep', schema: { properties: { s: INFERENCE_GRAPH_SPEC_SCHEMA.properties!['nodes']!.additionalProperties!.properties!['steps']!.items! } }, path: ['s'] },
  { type: 'RouterTimeouts', schema: INFERENCE_GRAPH_SPEC_SCHEMA, path: ['routerTimeouts'] },
];

const TM_PAIRS: Pair[] = [
  { type: 'TrainedModelSpec', schema: TRAINED_MODEL_SPEC_SCHEMA, path: [] },
  { type: 'TrainedModelModelSpec', schema: TRAINED_MODEL_SPEC_SCHEMA, path: ['model'] },
];

const RUNTIME_PAIRS: Pair[] = [
  { type: 'ServingRuntimeSpec', schema: SERVING_RUNTIME_SPEC_SCHEMA, path: [] },
  { type: 'SupportedModelFormat', schema: { properties: { f: SERVING_RUNTIME_SPEC_SCHEMA.properties!['supportedModelFormats']!.items! } }, path: ['f'] },
];

describe('the TypeScript types have exactly the fields of their schema', () => {
  const types = typeProperties('test/controller/crd-schema-types.ts', [
    ...new Set([...ISVC_PAIRS, ...RUNTIME_PAIRS, ...GRAPH_PAIRS, ...TM_PAIRS].flatMap((p) => [p.type, ...(p.embeds ? [p.embeds] : [])])),
  ]);

  it.each([...ISVC_PAIRS, ...RUNTIME_PAIRS, ...GRAPH_PAIRS, ...TM_PAIRS].map((p) => [`${p.type} ↔ ${p.path.join('.') || '(spec)'}`, p] as const))('%s', (_name, pair) => {
    const s = schemaAt(pair.schema, pair.path);
    expect(s, 'schema').toBeDefined();
    const inSchema = propertyNames(s);
    let inType = types.get(pair.type)!;
    if (pair.embeds) {
      // The schema lists the type's own fields; the embedded type's are kept as written.
      const embedded = new Set(types.get(pair.embeds));
      inType = inType.filter((k) => !embedded.has(k) || inSchema.includes(k));
    }
    expect({ onlyInType: inType.filter((k) => !inSchema.includes(k)), onlyInSchema: inSchema.filter((k) => !inType.includes(k)) }).toEqual({ onlyInType: [], onlyInSchema: [] });
  });
});

describe('derived from the schema', () => {
  const isvc = (spec: Record<string, unknown>) => ({ metadata: { name: 'm' }, spec: { predictor: { model: { modelFormat: { name: 'onnx' } } }, ...spec } });

  it('the admission shape checks every component the CRD has, the explainer included', () => {
    expect(shapeProblems(isvc({ explainer: { containers: [{ name: 'e', env: 'A=b' }], minReplicas: '1' } }), INFERENCE_SERVICE_SHAPE, '')).toEqual([
      'spec.explainer.containers[0].env must be a list, got string',
      'spec.explainer.minReplicas must be a number, got string',
    ]);
    expect(shapeProblems(isvc({ transformer: { containers: [{ name: 't' }], logger: { metadataHeaders: 'x' } } }), INFERENCE_SERVICE_SHAPE, '')).toEqual([
      'spec.transformer.logger.metadataHeaders must be a list, got string',
    ]);
  });

  it('a preserved Kubernetes type is checked as that type: the model is a container', () => {
    expect(shapeProblems(isvc({ predictor: { model: { modelFormat: { name: 'onnx' }, env: [{ name: 'A', value: 1 }], storageUri: 3 } } }), INFERENCE_SERVICE_SHAPE, '')).toEqual([
      'spec.predictor.model.env[0].value must be a string, got number',
      'spec.predictor.model.storageUri must be a string, got number',
    ]);
  });

  it('every field of every component is in the shape (int-or-string fields excepted)', () => {
    const spec = (INFERENCE_SERVICE_SHAPE as { fields: Record<string, { fields: Record<string, { fields: Record<string, unknown> }> }> }).fields['spec']!;
    for (const component of ['predictor', 'transformer', 'explainer']) {
      expect(Object.keys(spec.fields[component]!.fields).sort()).toEqual(propertyNames(schemaAt(INFERENCE_SERVICE_SPEC_SCHEMA, [component])).sort());
    }
  });

  it("a component's pod fields are exactly the PodSpec fields the CRD lists", () => {
    const everything = Object.fromEntries(propertyNames(schemaAt(INFERENCE_SERVICE_SPEC_SCHEMA, ['predictor'])).map((k) => [k, `value of ${k}`]));
    const podFields = Object.keys(POD_FIELDS);
    expect(Object.keys(componentPodSpec(everything)).sort()).toEqual(podFields.sort());
    expect(podFields).not.toContain('containers');
    expect(componentPodSpec({ nodeSelector: { a: 'b' }, minReplicas: 2, logger: { url: 'http://l' } })).toEqual({ nodeSelector: { a: 'b' } });
  });
});

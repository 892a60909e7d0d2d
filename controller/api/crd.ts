/**
 * Custom resource definitions written in TypeScript, as kubebuilder writes them in Go: one
 * description per kind is the CRD's `openAPIV3Schema` (YAML under controller/crds and the CRD
 * chart, written from it by `npm run crds`), and the rest is derived from it: the admission
 * shapes (webhooks/object-shape.ts), a component's pod fields (reconcile/component-pod-spec.ts).
 * test/controller/crd-schema.test.ts checks the written YAML is current and that the kind's
 * TypeScript types have exactly the schema's fields.
 *
 * Keys are the wire format's (`x-kubernetes-*`), so an object here is what the API server
 * serves back, not client-node's model.
 */

export type SchemaType = 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';

export interface ValidationRule {
  /** A CEL expression over `self`. */
  readonly rule: string;
  readonly message: string;
}

/** The subset of OpenAPI v3 (Kubernetes' structural schema) these CRDs use. */
export interface OpenApiSchema {
  readonly type?: SchemaType;
  readonly format?: 'int32' | 'int64';
  readonly required?: readonly string[];
  readonly properties?: Readonly<Record<string, OpenApiSchema>>;
  readonly additionalProperties?: OpenApiSchema;
  readonly items?: OpenApiSchema;
  readonly enum?: readonly string[];
  readonly minimum?: number;
  readonly maximum?: number;
  readonly minLength?: number;
  readonly pattern?: string;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly 'x-kubernetes-preserve-unknown-fields'?: true;
  readonly 'x-kubernetes-int-or-string'?: true;
  readonly 'x-kubernetes-validations'?: readonly ValidationRule[];
}

export interface PrinterColumn {
  readonly name: string;
  readonly type: 'string' | 'boolean' | 'integer' | 'date';
  readonly jsonPath: string;
  readonly priority?: number;
}

export interface CrdSource {
  /** The comment written above the YAML (why the schema is as it is). */
  readonly comment: string;
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
  readonly singular: string;
  readonly shortNames?: readonly string[];
  readonly scope: 'Namespaced' | 'Cluster';
  readonly printerColumns: readonly PrinterColumn[];
  /** The kind's `spec` (apiVersion, kind, metadata and a free-form status are added). */
  readonly spec: OpenApiSchema;
}

export interface CustomResourceDefinition {
  readonly apiVersion: 'apiextensions.k8s.io/v1';
  readonly kind: 'CustomResourceDefinition';
  readonly metadata: { readonly name: string; readonly labels: Readonly<Record<string, string>> };
  readonly spec: unknown;
}

/** Shorthands for the leaves every CRD repeats. */
export const schema = {
  string: { type: 'string' },
  boolean: { type: 'boolean' },
  object: { type: 'object' },
  /** Any JSON object: the API server keeps its fields as written. */
  anyObject: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
  stringMap: { type: 'object', additionalProperties: { type: 'string' } },
  listOf: (items: OpenApiSchema): OpenApiSchema => ({ type: 'array', items }),
  /** `!has(self.<field>)` with the message that says why the field is refused. */
  refuse: (field: string, message: string): ValidationRule => ({ rule: `!has(self.${field})`, message }),
} as const satisfies Record<string, OpenApiSchema | ((...a: never[]) => unknown)>;

/** The root schema of a kind: its spec, a status the controller owns (not pruned). */
export function rootSchema(spec: OpenApiSchema): OpenApiSchema {
  return {
    type: 'object',
    required: ['spec'],
    properties: {
      apiVersion: schema.string,
      kind: schema.string,
      metadata: schema.object,
      spec,
      status: schema.anyObject,
    },
  };
}

/** A CRD with what is written beside it: its file name and the comment above it. */
export interface CrdFile {
  /** `<group>_<plural>.yaml`, controller-gen's name. */
  readonly file: string;
  readonly comment: string;
  readonly crd: CustomResourceDefinition;
}

export function customResourceDefinition(s: CrdSource): CrdFile {
  return { file: `${s.group}_${s.plural}.yaml`, comment: s.comment, crd: crdObject(s) };
}

function crdObject(s: CrdSource): CustomResourceDefinition {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${s.plural}.${s.group}`, labels: { 'app.kubernetes.io/part-of': 'kserve-ts' } },
    spec: {
      group: s.group,
      names: {
        kind: s.kind,
        listKind: `${s.kind}List`,
        plural: s.plural,
        singular: s.singular,
        ...(s.shortNames ? { shortNames: s.shortNames } : {}),
        categories: ['kserve'],
      },
      scope: s.scope,
      versions: [
        {
          name: s.version,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: s.printerColumns,
          schema: { openAPIV3Schema: rootSchema(s.spec) },
        },
      ],
    },
  };
}

/** The schema at `path` (property names from the root), or undefined. */
export function schemaAt(root: OpenApiSchema, path: readonly string[]): OpenApiSchema | undefined {
  let s: OpenApiSchema | undefined = root;
  for (const p of path) s = s?.properties?.[p];
  return s;
}

/** The property names a schema lists (none for a free-form object). */
export function propertyNames(s: OpenApiSchema | undefined): string[] {
  return Object.keys(s?.properties ?? {});
}

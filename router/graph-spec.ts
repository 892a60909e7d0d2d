/**
 * The graph the router serves: KServe's InferenceGraphSpec (pkg/apis/serving/v1alpha1/
 * inference_graph.go) as `--graph-json` carries it, read the way Go's json.Unmarshal reads
 * it into that struct, so the same JSON means the same graph to both routers: field names
 * match case-insensitively, unknown fields are ignored, null leaves a field unset, and a
 * value of the wrong type is an error (KServe's router exits on it; so does this one).
 * The fields only the controller reads (resources, replicas, ...) are not kept.
 */

export const ROUTER_TYPES = ['Sequence', 'Splitter', 'Ensemble', 'Switch'] as const;
export type RouterType = (typeof ROUTER_TYPES)[number];

export const ROOT_NODE = 'root';

export interface InferenceStep {
  /** `name`: the key of this step's answer in an ensemble, and its label in metrics. */
  readonly name: string;
  readonly nodeName: string;
  readonly serviceName: string;
  readonly serviceUrl: string;
  /** `$request` or `$response` (only `$response` changes anything, in a Sequence). */
  readonly data: string;
  readonly mapPredictionsToInstances: boolean;
  readonly weight: number | undefined;
  readonly condition: string;
  /** `Soft` or `Hard` (only `Hard` changes anything). */
  readonly dependency: string;
}

export interface InferenceRouter {
  /** As written; one outside ROUTER_TYPES fails each request reaching the node, as KServe's. */
  readonly routerType: string;
  readonly steps: readonly InferenceStep[];
}

export interface RouterTimeouts {
  readonly serverRead: number | undefined;
  readonly serverWrite: number | undefined;
  readonly serverIdle: number | undefined;
  readonly serviceClient: number | undefined;
}

export interface GraphSpec {
  readonly nodes: ReadonlyMap<string, InferenceRouter>;
  readonly routerTimeouts: RouterTimeouts | undefined;
}

export class GraphSpecError extends Error {}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Go's field lookup: an exact key first, else one equal ignoring (ASCII) case; the last such wins. */
function field(obj: { [k: string]: Json }, name: string): Json | undefined {
  if (Object.hasOwn(obj, name)) return obj[name];
  let found: Json | undefined;
  const lower = name.toLowerCase();
  for (const [k, v] of Object.entries(obj)) if (k.toLowerCase() === lower) found = v;
  return found;
}

function typeName(v: Json): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  return typeof v === 'object' ? 'object' : typeof v === 'boolean' ? 'bool' : typeof v;
}

function wrong(v: Json, where: string, want: string): GraphSpecError {
  return new GraphSpecError(`graph json: ${where} must be ${want}, got ${typeName(v)}`);
}

function str(obj: { [k: string]: Json }, name: string, where: string): string {
  const v = field(obj, name);
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string') throw wrong(v, `${where}.${name}`, 'a string');
  return v;
}

function int(obj: { [k: string]: Json }, name: string, where: string): number | undefined {
  const v = field(obj, name);
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isSafeInteger(v)) throw wrong(v, `${where}.${name}`, 'an integer');
  return v;
}

function bool(obj: { [k: string]: Json }, name: string, where: string): boolean {
  const v = field(obj, name);
  if (v === undefined || v === null) return false;
  if (typeof v !== 'boolean') throw wrong(v, `${where}.${name}`, 'a boolean');
  return v;
}

function object(v: Json, where: string): { [k: string]: Json } | undefined {
  if (v === null) return undefined;
  if (typeof v !== 'object' || Array.isArray(v)) throw wrong(v, where, 'an object');
  return v;
}

function step(v: Json, where: string): InferenceStep {
  const o = object(v, where) ?? {};
  return {
    name: str(o, 'name', where),
    nodeName: str(o, 'nodeName', where),
    serviceName: str(o, 'serviceName', where),
    serviceUrl: str(o, 'serviceUrl', where),
    data: str(o, 'data', where),
    mapPredictionsToInstances: bool(o, 'mapPredictionsToInstances', where),
    weight: int(o, 'weight', where),
    condition: str(o, 'condition', where),
    dependency: str(o, 'dependency', where),
  };
}

function router(v: Json, where: string): InferenceRouter {
  const o = object(v, where) ?? {};
  const steps = field(o, 'steps');
  if (steps !== undefined && steps !== null && !Array.isArray(steps)) throw wrong(steps, `${where}.steps`, 'an array');
  return { routerType: str(o, 'routerType', where), steps: (steps ?? []).map((s, k) => step(s, `${where}.steps[${k}]`)) };
}

/** Parses `--graph-json`; throws GraphSpecError naming the field for what Go would refuse. */
export function parseGraphSpec(text: string): GraphSpec {
  let doc: Json;
  try {
    doc = JSON.parse(text) as Json;
  } catch (err) {
    throw new GraphSpecError(`graph json is not JSON: ${(err as Error).message}`);
  }
  const spec = object(doc, 'graph json') ?? {};
  const nodesJson = field(spec, 'nodes');
  const nodes = new Map<string, InferenceRouter>();
  const nodesObj = nodesJson === undefined ? undefined : object(nodesJson, 'nodes');
  for (const [name, v] of Object.entries(nodesObj ?? {})) nodes.set(name, router(v, `nodes.${name}`));
  const rt = field(spec, 'routerTimeouts');
  const rto = rt === undefined ? undefined : object(rt, 'routerTimeouts');
  const routerTimeouts =
    rto === undefined
      ? undefined
      : {
          serverRead: int(rto, 'serverRead', 'routerTimeouts'),
          serverWrite: int(rto, 'serverWrite', 'routerTimeouts'),
          serverIdle: int(rto, 'serverIdle', 'routerTimeouts'),
          serviceClient: int(rto, 'serviceClient', 'routerTimeouts'),
        };
  return { nodes, routerTimeouts };
}

/** Every serviceUrl the graph can call, once each (readiness, metrics, client pools). */
export function serviceUrls(spec: GraphSpec): string[] {
  const urls = new Set<string>();
  for (const node of spec.nodes.values()) for (const s of node.steps) if (s.nodeName === '' && s.serviceUrl !== '') urls.add(s.serviceUrl);
  return [...urls];
}

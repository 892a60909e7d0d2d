/**
 * `--graph-json`, the router's argument: the graph's spec as KServe's controller writes it
 * (`json.Marshal(graph.Spec)`), with the URL of every `serviceName` step filled in. The
 * fields come in Go's struct order, node names sorted, strings escaped as Go escapes them,
 * empty optional fields left out and `resources` always present, so the argument is the
 * one KServe's controller would give for the same graph (the pod-level fields the router
 * does not read are kept as written, not re-encoded as Kubernetes' Go types would).
 */
import type { InferenceGraphSpec, InferenceRouter, InferenceStep, RouterTimeouts } from '../../api/inference-graph.js';
import { goString } from '../../../router/go-json.js';

/** A JSON object from fields in order, those undefined left out (Go's `omitempty`). */
function object(fields: readonly (readonly [string, string | undefined])[]): string {
  return `{${fields
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${goString(k)}:${v}`)
    .join(',')}}`;
}

const str = (s: string | undefined): string | undefined => (s === undefined || s === '' ? undefined : goString(s));
const num = (n: number | undefined): string | undefined => (n === undefined || n === null ? undefined : String(n));
const nonZero = (n: number | undefined): string | undefined => (n === undefined || n === 0 ? undefined : String(n));
/** A value the router does not read, as written (keys sorted, as Go's maps; no HTML-escaping subtleties matter there). */
const asWritten = (v: unknown): string | undefined => (v === undefined || v === null ? undefined : JSON.stringify(v));

function step(s: InferenceStep): string {
  return object([
    ['name', str(s.name)],
    ['nodeName', str(s.nodeName)],
    ['serviceName', str(s.serviceName)],
    ['serviceUrl', str(s.serviceUrl)],
    ['data', str(s.data)],
    ['mapPredictionsToInstances', s.mapPredictionsToInstances ? 'true' : undefined],
    ['weight', num(s.weight)],
    ['condition', str(s.condition)],
    ['dependency', str(s.dependency)],
  ]);
}

function router(r: InferenceRouter): string {
  const steps = r.steps ?? [];
  return object([
    ['routerType', goString(r.routerType)],
    ['steps', steps.length === 0 ? undefined : `[${steps.map(step).join(',')}]`],
  ]);
}

function timeouts(t: RouterTimeouts): string {
  return object([
    ['serverRead', num(t.serverRead)],
    ['serverWrite', num(t.serverWrite)],
    ['serverIdle', num(t.serverIdle)],
    ['serviceClient', num(t.serviceClient)],
  ]);
}

/** Go's byte order of UTF-8 keys is code point order. */
function byCodePoint(a: string, b: string): number {
  const x = [...a].map((c) => c.codePointAt(0)!);
  const y = [...b].map((c) => c.codePointAt(0)!);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}

export function graphJson(spec: InferenceGraphSpec): string {
  const nodes = Object.keys(spec.nodes ?? {})
    .sort(byCodePoint)
    .map((name) => `${goString(name)}:${router(spec.nodes[name]!)}`);
  const tolerations = spec.tolerations ?? [];
  const selector = spec.nodeSelector ?? {};
  return object([
    ['nodes', `{${nodes.join(',')}}`],
    ['resources', asWritten(spec.resources) ?? '{}'],
    ['affinity', asWritten(spec.affinity)],
    ['timeout', num(spec.timeout)],
    ['routerTimeouts', spec.routerTimeouts === undefined ? undefined : timeouts(spec.routerTimeouts)],
    ['minReplicas', num(spec.minReplicas)],
    ['maxReplicas', nonZero(spec.maxReplicas)],
    ['scaleTarget', num(spec.scaleTarget)],
    ['scaleMetric', str(spec.scaleMetric)],
    ['tolerations', tolerations.length === 0 ? undefined : asWritten(tolerations)],
    ['nodeSelector', Object.keys(selector).length === 0 ? undefined : asWritten(selector)],
    ['nodeName', str(spec.nodeName)],
    ['serviceAccountName', str(spec.serviceAccountName)],
  ]);
}

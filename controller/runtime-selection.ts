/**
 * Serving-runtime selection exactly as KServe's `Predictor.reconcileModel` and
 * `ModelSpec.GetSupportingRuntimes` (pkg/apis/serving/v1beta1/predictor_model.go):
 * an explicit `model.runtime` is resolved namespaced-first; otherwise candidates are
 * filtered by format label, protocol, disabled and multiModel, each scope sorted by
 * (lowest protocol, newest, name) then by the format's priority, and namespaced runtimes
 * always precede cluster runtimes. Pure: the caller lists the runtimes.
 *
 * One rule of kserve-ts's own, for accelerators (accelerators.ts): auto-selection skips a
 * runtime whose serving container requests an accelerator the model does not ask for, and
 * within a scope puts the runtimes built for the model's accelerators first. Without
 * accelerators on either side it changes nothing.
 *
 * And one for tasks (huggingface-tasks.ts): a runtime that declares the tasks it serves is
 * a candidate only for a model whose `--task` is among them; an explicitly named one refuses
 * the others. Runtimes that declare none (KServe's) are unaffected.
 */
import { acceleratorsOf, runtimeAccelerators } from './accelerators.js';
import type { ModelSpec, ProtocolVersion } from './api/inference-service.js';
import type { ServingRuntime, ServingRuntimeSpec } from './api/serving-runtime.js';
import { servesTask, taskMismatch } from './huggingface-tasks.js';

export type RuntimeFailureReason = 'NoSupportingRuntime' | 'RuntimeNotRecognized' | 'RuntimeDisabled';

export type RuntimeSelection =
  | {
      readonly ok: true;
      readonly runtime: ServingRuntime;
      readonly scope: 'namespace' | 'cluster';
      /** The model's protocol, or the runtime's lowest when the model names none. */
      readonly protocolVersion: ProtocolVersion;
    }
  | { readonly ok: false; readonly reason: RuntimeFailureReason; readonly message: string };

export interface RuntimeCandidates {
  readonly namespaced: readonly ServingRuntime[];
  readonly cluster: readonly ServingRuntime[];
}

const PROTOCOL_RANK: Readonly<Record<string, number>> = { v1: 0, v2: 1, 'grpc-v1': 2, 'grpc-v2': 3 };
const UNKNOWN_RANK = 4;

export function selectRuntime(model: ModelSpec, candidates: RuntimeCandidates): RuntimeSelection {
  return model.runtime !== undefined && model.runtime !== '' ? explicitRuntime(model, model.runtime, candidates) : autoSelectRuntime(model, candidates);
}

/** The protocol a model asks for: its own, else v1 (KServe's `GetProtocol`). */
export function modelProtocol(model: ModelSpec): ProtocolVersion {
  return model.protocolVersion ?? 'v1';
}

function explicitRuntime(model: ModelSpec, name: string, candidates: RuntimeCandidates): RuntimeSelection {
  const namespaced = candidates.namespaced.find((r) => r.metadata.name === name);
  const runtime = namespaced ?? candidates.cluster.find((r) => r.metadata.name === name);
  if (!runtime) return fail('RuntimeNotRecognized', 'Waiting for runtime to become available');
  if (runtime.spec.disabled) return fail('RuntimeDisabled', 'Specified runtime is disabled');
  if (model.protocolVersion !== undefined && !supportsProtocol(runtime.spec, model.protocolVersion)) {
    return fail('NoSupportingRuntime', 'Specified runtime does not support specified protocol version');
  }
  if (!supportsFormat(model, runtime.spec, true)) {
    return fail('NoSupportingRuntime', 'Specified runtime does not support specified framework/version');
  }
  if (!servesTask(runtime, model)) return fail('NoSupportingRuntime', taskMismatch(runtime, model));
  return chosen(model, runtime, namespaced ? 'namespace' : 'cluster');
}

function autoSelectRuntime(model: ModelSpec, candidates: RuntimeCandidates): RuntimeSelection {
  const protocol = modelProtocol(model);
  const wanted = acceleratorsOf(model.resources);
  const eligible = (r: ServingRuntime): boolean =>
    !r.spec.disabled &&
    !r.spec.multiModel &&
    supportsFormat(model, r.spec, false) &&
    supportsProtocol(r.spec, protocol) &&
    servesTask(r, model) &&
    runtimeAccelerators(r.spec).every((a) => wanted.includes(a));
  const ordered = (list: readonly ServingRuntime[]) => acceleratedFirst(orderCandidates(list.filter(eligible), model.modelFormat.name));
  const namespaced = ordered(candidates.namespaced);
  if (namespaced[0]) return chosen(model, namespaced[0], 'namespace');
  const cluster = ordered(candidates.cluster);
  if (cluster[0]) return chosen(model, cluster[0], 'cluster');
  return fail('NoSupportingRuntime', 'No runtime found to support specified framework/version');
}

/**
 * Runtimes built for an accelerator before the others, each group in KServe's order (a
 * stable sort). The caller has already dropped runtimes built for accelerators the model
 * does not ask for, so "built for one" means built for one the model asks for.
 */
function acceleratedFirst(runtimes: ServingRuntime[]): ServingRuntime[] {
  const rank = (r: ServingRuntime) => (runtimeAccelerators(r.spec).length > 0 ? 0 : 1);
  return runtimes.sort((a, b) => rank(a) - rank(b));
}

/**
 * (lowest protocol asc, creation newest first, name asc), then a stable sort by the
 * priority of the first format entry with the model's name: prioritised runtimes first,
 * higher priority first. Exported for the table tests.
 */
export function orderCandidates(runtimes: readonly ServingRuntime[], formatName: string): ServingRuntime[] {
  const byBase = [...runtimes].sort((a, b) => {
    const pa = lowestProtocolRank(a.spec);
    const pb = lowestProtocolRank(b.spec);
    if (pa !== pb) return pa - pb;
    const ta = creationMillis(a);
    const tb = creationMillis(b);
    if (ta !== tb) return tb - ta;
    return compareStrings(a.metadata.name ?? '', b.metadata.name ?? '');
  });
  return byBase.sort((a, b) => {
    const p1 = priorityOf(a.spec, formatName);
    const p2 = priorityOf(b.spec, formatName);
    if (p1 === undefined && p2 === undefined) return 0;
    if (p1 === undefined) return 1;
    if (p2 === undefined) return -1;
    return p2 - p1;
  });
}

/** Model label `mt:<name>[:<version>]` must be among the runtime's format labels. */
function supportsFormat(model: ModelSpec, spec: ServingRuntimeSpec, explicit: boolean): boolean {
  const { name, version } = model.modelFormat;
  const wanted = version !== undefined && version !== '' ? `mt:${name}:${version}` : `mt:${name}`;
  for (const f of spec.supportedModelFormats ?? []) {
    // Explicitly named runtimes ignore autoSelect, as in KServe.
    if (!explicit && f.autoSelect !== true) continue;
    if (wanted === `mt:${f.name}`) return true;
    if (f.version !== undefined && wanted === `mt:${f.name}:${f.version}`) return true;
  }
  return false;
}

function supportsProtocol(spec: ServingRuntimeSpec, protocol: ProtocolVersion): boolean {
  const list = spec.protocolVersions;
  return list === undefined || list.length === 0 || list.includes(protocol);
}

function lowestProtocolRank(spec: ServingRuntimeSpec): number {
  const list = spec.protocolVersions ?? [];
  if (list.length === 0) return UNKNOWN_RANK;
  return Math.min(...list.map((p) => PROTOCOL_RANK[p] ?? UNKNOWN_RANK));
}

/** The runtime's lowest protocol, used when the model names none (KServe persists it). */
function lowestProtocol(spec: ServingRuntimeSpec): ProtocolVersion {
  const rank = lowestProtocolRank(spec);
  const found = Object.entries(PROTOCOL_RANK).find(([, r]) => r === rank);
  return (found?.[0] as ProtocolVersion | undefined) ?? 'v1';
}

function priorityOf(spec: ServingRuntimeSpec, formatName: string): number | undefined {
  return spec.supportedModelFormats?.find((f) => f.name === formatName)?.priority;
}

function creationMillis(r: ServingRuntime): number {
  const t = r.metadata.creationTimestamp;
  if (t === undefined) return 0;
  return t instanceof Date ? t.getTime() : Date.parse(String(t));
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function chosen(model: ModelSpec, runtime: ServingRuntime, scope: 'namespace' | 'cluster'): RuntimeSelection {
  return { ok: true, runtime, scope, protocolVersion: model.protocolVersion ?? lowestProtocol(runtime.spec) };
}

function fail(reason: RuntimeFailureReason, message: string): RuntimeSelection {
  return { ok: false, reason, message };
}

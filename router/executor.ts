/**
 * Routing through the graph, as KServe's cmd/router routeStep does it, for any wire (REST
 * bodies, gRPC messages): the wire says how a step is called, what JSON a condition reads,
 * and how ensemble answers merge; the order of calls, the choice of steps and the answer
 * that comes back are decided here, once, for both.
 *
 * - Sequence: steps in order; each gets the graph's request, or with `data: $response`
 *   (not on the first step) the previous step's answer; `mapPredictionsToInstances`
 *   rewrites it; a step's `condition` is read from the previous answer (none yet, or not
 *   JSON: 500 "invalid response") and, not met, ends the sequence with that answer and
 *   200; a `Hard` step that does not succeed ends it with its answer; otherwise the last
 *   step's answer and status.
 * - Switch: the first step whose condition exists in the request (no step: 404); Splitter:
 *   a step drawn by weight out of 100 (none drawn: 500). Either answers with the step's
 *   answer, whatever its status.
 * - Ensemble: every step at once; answers merged by step name (index when unnamed); the
 *   first `Hard` step (in step order) that does not succeed answers instead; a step with
 *   no answer or one that cannot merge fails the node (500).
 */
import { get, valid } from './gjson/index.js';
import type { GraphSpec, InferenceRouter, InferenceStep, RouterType } from './graph-spec.js';
import { ROOT_NODE } from './graph-spec.js';
import { RoutingError, isSuccess, routingErrors } from './routing-error.js';

export interface StepAnswer<P> {
  /** An HTTP status (a gRPC step's code mapped to one): 2xx is success. */
  readonly status: number;
  readonly payload: P;
}

/** Where a step sits, for metrics and logs. */
export interface StepRef {
  readonly node: string;
  /** The step's name, or its index when it has none. */
  readonly step: string;
  readonly url: string;
}

/** One wire format's part of routing. */
export interface GraphWire<P, Part> {
  /** Calls a service step; resolves with its answer whatever the status, rejects with a RoutingError when none came. */
  call(ref: StepRef, input: P): Promise<StepAnswer<P>>;
  /** The JSON conditions read, as a byte string; undefined when the payload holds none. */
  conditionDocument(payload: P): string | undefined;
  /** `mapPredictionsToInstances`: `predictions` moved to `instances`, or the payload unchanged. */
  mapPredictionsToInstances(payload: P): P;
  /** An ensemble step's answer read for merging; rejects (a RoutingError) when it cannot be. */
  ensemblePart(ref: StepRef, answer: StepAnswer<P>): Part;
  /** The answer of a failed Hard ensemble step, as KServe re-encodes it. */
  ensembleFailure(part: Part, status: number): StepAnswer<P>;
  /** The merged answer, parts in step order under their keys. */
  ensembleMerge(parts: readonly (readonly [string, Part])[]): P;
}

/** Nodes calling nodes deeper than this fail (a cyclic graph given straight to the router). */
const MAX_DEPTH = 64;

type NodeRun = <P, Part>(g: Routing<P, Part>, name: string, node: InferenceRouter, input: P, depth: number) => Promise<StepAnswer<P>>;

function stepKey(step: InferenceStep, index: number): string {
  return step.name === '' ? String(index) : step.name;
}

async function sequence<P, Part>(g: Routing<P, Part>, name: string, node: InferenceRouter, input: P, depth: number): Promise<StepAnswer<P>> {
  if (node.steps.length === 0) throw routingErrors.noSteps(name);
  let last: StepAnswer<P> | undefined;
  for (const [i, step] of node.steps.entries()) {
    let request = step.data === '$response' && last !== undefined ? last.payload : input;
    if (step.mapPredictionsToInstances) request = g.wire.mapPredictionsToInstances(request);
    if (step.condition !== '') {
      const doc = last === undefined ? undefined : g.wire.conditionDocument(last.payload);
      if (doc === undefined || !valid(doc)) throw routingErrors.invalidResponse();
      if (!get(doc, step.condition).exists()) return { status: 200, payload: last!.payload };
    }
    last = await g.execute(name, step, i, request, depth);
    if (step.dependency === 'Hard' && !isSuccess(last.status)) return last;
  }
  return last!;
}

async function switchNode<P, Part>(g: Routing<P, Part>, name: string, node: InferenceRouter, input: P, depth: number): Promise<StepAnswer<P>> {
  const doc = g.wire.conditionDocument(input);
  const index = doc !== undefined && valid(doc) ? node.steps.findIndex((s) => get(doc, s.condition).exists()) : -1;
  if (index < 0) throw routingErrors.noSwitchMatch();
  return g.execute(name, node.steps[index]!, index, input, depth);
}

async function splitter<P, Part>(g: Routing<P, Part>, name: string, node: InferenceRouter, input: P, depth: number): Promise<StepAnswer<P>> {
  const point = g.random100();
  let end = 0;
  for (const [i, step] of node.steps.entries()) {
    if (step.weight === undefined) throw routingErrors.missingWeight(name, i);
    end += step.weight;
    if (point < end) return g.execute(name, step, i, input, depth);
  }
  throw routingErrors.noSplitterRoute();
}

async function ensemble<P, Part>(g: Routing<P, Part>, name: string, node: InferenceRouter, input: P, depth: number): Promise<StepAnswer<P>> {
  const runs = node.steps.map(async (step, i) => {
    const answer = await g.execute(name, step, i, input, depth);
    return { answer, part: g.wire.ensemblePart({ node: name, step: stepKey(step, i), url: step.serviceUrl }, answer) };
  });
  // As KServe's router: any step failing ends the node at once, whichever step is awaited.
  const anyFailure = new Promise<never>((_, reject) => {
    for (const r of runs) r.catch(reject);
  });
  anyFailure.catch(() => undefined);
  const parts: [string, Part][] = [];
  for (const [i, step] of node.steps.entries()) {
    const { answer, part } = await Promise.race([runs[i]!, anyFailure]);
    if (!isSuccess(answer.status) && step.dependency === 'Hard') return g.wire.ensembleFailure(part, answer.status);
    parts.push([stepKey(step, i), part]);
  }
  return { status: 200, payload: g.wire.ensembleMerge(parts) };
}

const NODE_TYPES: Readonly<Record<RouterType, NodeRun>> = {
  Sequence: sequence,
  Switch: switchNode,
  Splitter: splitter,
  Ensemble: ensemble,
};

function isRouterType(type: string): type is RouterType {
  return Object.hasOwn(NODE_TYPES, type);
}

export class Routing<P, Part> {
  constructor(
    readonly spec: GraphSpec,
    readonly wire: GraphWire<P, Part>,
    /** A uniform integer in [0, 100) (KServe draws with crypto/rand). */
    readonly random100: () => number = () => Math.floor(Math.random() * 100),
  ) {}

  /** The graph's answer to one request: the root node's, or a RoutingError. */
  route(input: P): Promise<StepAnswer<P>> {
    return this.node(ROOT_NODE, input, 0);
  }

  node(name: string, input: P, depth: number): Promise<StepAnswer<P>> {
    if (depth > MAX_DEPTH) return Promise.reject(routingErrors.tooDeep(name, MAX_DEPTH));
    // A missing node is Go's zero value: router type "".
    const node = this.spec.nodes.get(name) ?? { routerType: '', steps: [] };
    if (!isRouterType(node.routerType)) return Promise.reject(routingErrors.invalidRouteType(node.routerType));
    return NODE_TYPES[node.routerType](this, name, node, input, depth);
  }

  /**
   * A step: another node, or a service call through the wire. A node's failure reaches
   * its parent as a 500 whatever its own status (KServe's executeStep callers), so only
   * the root's own failures keep theirs (a root Switch matching nothing: 404).
   */
  execute(node: string, step: InferenceStep, index: number, input: P, depth: number): Promise<StepAnswer<P>> {
    if (step.nodeName === '') return this.wire.call({ node, step: stepKey(step, index), url: step.serviceUrl }, input);
    return this.node(step.nodeName, input, depth + 1).catch((err: unknown) => {
      throw err instanceof RoutingError ? new RoutingError(500, err.reason) : err;
    });
  }
}

export { RoutingError };

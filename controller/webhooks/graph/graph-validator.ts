/**
 * KServe's InferenceGraph validation (`pkg/apis/serving/v1alpha1/inference_graph_validation.go`)
 * with its messages, in its order: the name, a `root` node, unique step names per node,
 * exactly one target per step, splitter weights present and summing to 100. The first
 * failure is the answer, as KServe's; nodes are checked in name order (KServe's Go map
 * order is random, so with several bad nodes it may name another one first).
 *
 * Beyond KServe (its router would fail each request instead): a step's `nodeName` must name
 * a node of the graph, and no node may reach itself through `nodeName` steps. Also beyond
 * KServe: the router's autoscaler class is one the controller serves, and not `keda` (a graph
 * has no `autoScaling.metrics` to make KEDA triggers from; KServe makes a ScaledObject
 * without triggers, which never scales).
 */
import { type InferenceGraph, type InferenceRouter, ROOT_NODE } from '../../api/inference-graph.js';
import { ANN_AUTOSCALER_CLASS } from '../../constants.js';
import { AUTOSCALER_CLASSES } from '../../reconcile/standard/hpa.js';

export const GRAPH_NAME_FORMAT = '[a-z]([-a-z0-9]*[a-z0-9])?';
const GRAPH_NAME = new RegExp(`^${GRAPH_NAME_FORMAT}$`);

export const graphMessages = {
  invalidName: (name: string) =>
    `The InferenceGraph "${name}" is invalid: a InferenceGraph name must consist of lower case alphanumeric characters or '-', and must start with alphabetical character. (e.g. "my-name" or "abc-123", regex used for validation is '${GRAPH_NAME_FORMAT}')`,
  rootNotFound: () => "root node not found, InferenceGraph needs a node with name 'root' as the root node of the graph",
  weightNotProvided: (graph: string, node: string, serviceName: string) => `InferenceGraph[${graph}] Node[${node}] Route[${serviceName}] missing the 'Weight'`,
  invalidWeight: (graph: string, node: string) => `InferenceGraph[${graph}] Node[${node}] splitter node: the sum of traffic weights for all routing targets should be 100`,
  duplicateStepName: (node: string, graph: string, step: string) => `Node "${node}" of InferenceGraph "${graph}" contains more than one step with name "${step}"`,
  targetNotProvided: (i: number, step: string, node: string, graph: string) =>
    `Step ${i} ("${step}") in node "${node}" of InferenceGraph "${graph}" does not specify an inference target`,
  invalidTarget: (i: number, step: string, node: string, graph: string) =>
    `Step ${i} ("${step}") in node "${node}" of InferenceGraph "${graph}" specifies more than one of nodeName, serviceName, serviceUrl`,
  unknownNode: (i: number, step: string, node: string, graph: string, target: string) =>
    `Step ${i} ("${step}") in node "${node}" of InferenceGraph "${graph}" refers to node "${target}", which the graph does not have`,
  cycle: (graph: string, path: readonly string[]) => `InferenceGraph "${graph}" has a cycle of nodes: ${path.join(' -> ')}`,
  autoscalerClass: (value: string) =>
    value === 'keda'
      ? `annotation ${ANN_AUTOSCALER_CLASS}: keda is not supported for an InferenceGraph (it has no autoScaling metrics to make KEDA triggers from); use hpa, external or none`
      : `annotation ${ANN_AUTOSCALER_CLASS}: [${value}] is not a supported autoscaler class type`,
};

const GRAPH_AUTOSCALER_CLASSES = AUTOSCALER_CLASSES.filter((c) => c !== 'keda');

type Nodes = readonly (readonly [string, InferenceRouter])[];

function stepNamesUnique(graph: string, nodes: Nodes): string | undefined {
  for (const [node, router] of nodes) {
    const seen = new Set<string>();
    for (const step of router.steps ?? []) {
      const name = step.name ?? '';
      if (name === '') continue;
      if (seen.has(name)) return graphMessages.duplicateStepName(node, graph, name);
      seen.add(name);
    }
  }
  return undefined;
}

function singleTargets(graph: string, nodes: Nodes): string | undefined {
  for (const [node, router] of nodes) {
    for (const [i, step] of (router.steps ?? []).entries()) {
      const count = [step.nodeName, step.serviceName, step.serviceUrl].filter((t) => t !== undefined && t !== '').length;
      if (count === 0) return graphMessages.targetNotProvided(i, step.name ?? '', node, graph);
      if (count !== 1) return graphMessages.invalidTarget(i, step.name ?? '', node, graph);
    }
  }
  return undefined;
}

function splitterWeights(graph: string, nodes: Nodes): string | undefined {
  for (const [node, router] of nodes) {
    if (router.routerType !== 'Splitter') continue;
    let sum = 0;
    for (const step of router.steps ?? []) {
      if (step.weight === undefined || step.weight === null) return graphMessages.weightNotProvided(graph, node, step.serviceName ?? '');
      sum += step.weight;
    }
    if (sum !== 100) return graphMessages.invalidWeight(graph, node);
  }
  return undefined;
}

function nodeReferences(graph: string, nodes: Nodes): string | undefined {
  const names = new Set(nodes.map(([n]) => n));
  for (const [node, router] of nodes) {
    for (const [i, step] of (router.steps ?? []).entries()) {
      if (step.nodeName && !names.has(step.nodeName)) return graphMessages.unknownNode(i, step.name ?? '', node, graph, step.nodeName);
    }
  }
  return undefined;
}

/** The first cycle through `nodeName` steps, depth first from each node in name order. */
function cycles(graph: string, nodes: Nodes): string | undefined {
  const next = new Map(nodes.map(([n, r]) => [n, (r.steps ?? []).map((s) => s.nodeName).filter((t): t is string => !!t)]));
  const done = new Set<string>();
  const visit = (node: string, path: string[]): string[] | undefined => {
    const at = path.indexOf(node);
    if (at >= 0) return [...path.slice(at), node];
    if (done.has(node)) return undefined;
    for (const target of next.get(node) ?? []) {
      const found = visit(target, [...path, node]);
      if (found) return found;
    }
    done.add(node);
    return undefined;
  };
  for (const [node] of nodes) {
    const found = visit(node, []);
    if (found) return graphMessages.cycle(graph, found);
  }
  return undefined;
}

/** The first problem of the graph (KServe's message where KServe has the rule), or undefined. */
export function validateInferenceGraph(ig: InferenceGraph): string | undefined {
  const name = ig.metadata.name ?? '';
  if (!GRAPH_NAME.test(name)) return graphMessages.invalidName(name);
  const nodes: Nodes = Object.entries(ig.spec?.nodes ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (!nodes.some(([n]) => n === ROOT_NODE)) return graphMessages.rootNotFound();
  for (const rule of [stepNamesUnique, singleTargets, splitterWeights, nodeReferences, cycles]) {
    const problem = rule(name, nodes);
    if (problem !== undefined) return problem;
  }
  const autoscalerClass = ig.metadata.annotations?.[ANN_AUTOSCALER_CLASS];
  if (autoscalerClass !== undefined && !GRAPH_AUTOSCALER_CLASSES.includes(autoscalerClass)) return graphMessages.autoscalerClass(autoscalerClass);
  return undefined;
}

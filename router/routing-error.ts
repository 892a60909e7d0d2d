/**
 * A request the graph could not route (KServe's router: routeStep's `error`): the status
 * it answers with and the cause KServe's router puts in `{"error": "Failed to process
 * request", "cause": ...}`. Messages are KServe's, word for word, where it has one.
 */
export class RoutingError extends Error {
  constructor(
    readonly status: number,
    readonly reason: string,
    /** No answer came in time (a step's timeout), for metrics. */
    readonly timedOut = false,
  ) {
    super(reason);
  }
}

export const routingErrors = {
  noSwitchMatch: () => new RoutingError(404, 'None of the routes matched with the switch condition'),
  noSplitterRoute: () => new RoutingError(500, 'no route was selected by the splitter'),
  invalidRouteType: (type: string) => new RoutingError(500, `invalid route type: ${type}`),
  invalidResponse: () => new RoutingError(500, 'invalid response'),
  /** Not KServe's: its router panics on a Splitter step without a weight (the webhook forbids one). */
  missingWeight: (node: string, index: number) => new RoutingError(500, `splitter node ${node}: step ${index} has no weight`),
  /** Not KServe's: its router answers status 0 (a panic) for a Sequence without steps. */
  noSteps: (node: string) => new RoutingError(500, `node ${node} has no steps`),
  /** Not KServe's: nodes calling themselves without end would recurse until the stack overflows. */
  tooDeep: (node: string, depth: number) => new RoutingError(500, `node ${node}: the graph is more than ${depth} nodes deep`),
};

/** Go's `statusCode >= 200 && statusCode <= 299`. */
export function isSuccess(status: number): boolean {
  return status >= 200 && status <= 299;
}

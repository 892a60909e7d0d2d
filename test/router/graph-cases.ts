/**
 * The REST cases both router suites run: test/router/router.test.ts checks kserve-ts's
 * router against the answers written here (what KServe's cmd/router code gives), and
 * test/router-differential/ runs every case through KServe's own router as well and
 * compares status, Content-Type and body byte for byte. Each case is a graph over the
 * predictors of predictors.ts and the requests sent to it.
 */
import { HAS_LARGE_PREDICTION, HAS_MID_PREDICTION, SWITCH_A, SWITCH_B } from './conditions.js';

import type { Steps } from './predictors.js';

export type { Steps };

export interface GraphRequest {
  readonly method?: string;
  readonly path?: string;
  readonly body: string;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface Expected {
  readonly status: number;
  readonly contentType?: string;
  /** The exact body; a function when it names a URL of this run; a pattern where the step's words depend on its Node version. */
  readonly body: string | RegExp | ((s: Steps) => string);
}

export interface GraphCase {
  readonly name: string;
  readonly graph: (s: Steps) => Record<string, unknown>;
  readonly requests: readonly (readonly [GraphRequest, Expected])[];
  /** PROPAGATE_HEADERS for both routers. */
  readonly propagate?: string;
  /** The request reaches the `held` model: the gate opens only after the router answered. */
  readonly held?: true;
}

const V1 = '{"instances":[[1,2]]}';
const V2 = '{"id":"req-1","inputs":[{"name":"x","shape":[1,2],"datatype":"FP32","data":[1,2]}]}';
const JSON_TYPE = 'application/json';

const ok = (body: string): Expected => ({ status: 200, contentType: JSON_TYPE, body });
const routingError = (status: number, cause: string | ((s: Steps) => string)): Expected => ({
  status,
  contentType: JSON_TYPE,
  body: (s: Steps) => JSON.stringify({ error: 'Failed to process request', cause: typeof cause === 'string' ? cause : cause(s) }),
});
const v2Answer = (model: string, data: string): string =>
  `{"model_name":"${model}","model_version":null,"id":"req-1","parameters":null,"outputs":[{"name":"y","shape":[1,2],"datatype":"FP32","parameters":null,"data":${data}}]}`;

const sequence = (...steps: Record<string, unknown>[]) => ({ nodes: { root: { routerType: 'Sequence', steps } } });

export const GRAPH_CASES: readonly GraphCase[] = [
  {
    name: 'Sequence: every step gets the request ($request)',
    graph: (s) => sequence({ serviceUrl: s.v1('double') }, { serviceUrl: s.v1('triple'), data: '$request' }),
    requests: [[{ body: V1 }, ok('{"predictions":[[3.0,6.0]]}')]],
  },
  {
    name: 'Sequence: $response with mapPredictionsToInstances',
    graph: (s) => sequence({ name: 'a', serviceUrl: s.v1('double') }, { name: 'b', serviceUrl: s.v1('triple'), data: '$response', mapPredictionsToInstances: true }),
    requests: [[{ body: V1 }, ok('{"predictions":[[6.0,12.0]]}')]],
  },
  {
    name: 'Sequence: $response as it is (the last step refuses predictions)',
    graph: (s) => sequence({ serviceUrl: s.v1('double') }, { serviceUrl: s.v1('triple'), data: '$response' }),
    requests: [[{ body: V1 }, { status: 400, contentType: JSON_TYPE, body: '{"error":"Expected \\"instances\\" or \\"inputs\\" in the request body"}' }]],
  },
  {
    name: 'Sequence: V2 JSON through two steps',
    graph: (s) => sequence({ serviceUrl: s.v2('double') }, { serviceUrl: s.v2('triple') }),
    requests: [[{ body: V2, headers: { 'content-type': JSON_TYPE } }, ok(v2Answer('triple', '[3.0,6.0]'))]],
  },
  {
    name: "Sequence: a step's condition met on the previous answer",
    graph: (s) => sequence({ serviceUrl: s.v1('double') }, { serviceUrl: s.v1('triple'), condition: HAS_MID_PREDICTION }),
    requests: [[{ body: V1 }, ok('{"predictions":[[3.0,6.0]]}')]],
  },
  {
    name: "Sequence: a step's condition not met ends it with the previous answer",
    graph: (s) => sequence({ serviceUrl: s.v1('double') }, { serviceUrl: s.v1('triple'), condition: HAS_LARGE_PREDICTION }),
    requests: [[{ body: V1 }, ok('{"predictions":[[2.0,4.0]]}')]],
  },
  {
    name: 'Sequence: a condition on the first step has no answer to read',
    graph: (s) => sequence({ serviceUrl: s.v1('double'), condition: HAS_MID_PREDICTION }),
    requests: [[{ body: V1 }, routingError(500, 'invalid response')]],
  },
  {
    name: 'Sequence: a Hard step that fails stops it with its answer',
    graph: (s) => sequence({ serviceUrl: s.v1('fail'), dependency: 'Hard' }, { serviceUrl: s.v1('double') }),
    requests: [[{ body: V1 }, { status: 500, contentType: JSON_TYPE, body: '{"error":"fail always fails"}' }]],
  },
  {
    name: 'Sequence: a Soft step that fails does not stop it',
    graph: (s) => sequence({ serviceUrl: s.v1('fail'), dependency: 'Soft' }, { serviceUrl: s.v1('double') }),
    requests: [[{ body: V1 }, ok('{"predictions":[[2.0,4.0]]}')]],
  },
  {
    name: 'Sequence: a body that is not JSON passes through',
    graph: (s) => sequence({ serviceUrl: s.v1('double') }),
    requests: [[{ body: 'not json' }, { status: 400, contentType: JSON_TYPE, body: /^\{"error":"Unrecognized request format: [^"]*(\\"[^"]*)*"\}$/ }]],
  },
  {
    name: 'Switch: the first step whose condition matches the request',
    graph: (s) => ({
      nodes: {
        root: {
          routerType: 'Switch',
          steps: [
            { serviceUrl: s.v1('double'), condition: SWITCH_A },
            { serviceUrl: s.v1('triple'), condition: SWITCH_B },
          ],
        },
      },
    }),
    requests: [
      [{ body: '{"route":"a","instances":[[1,2]]}' }, ok('{"predictions":[[2.0,4.0]]}')],
      [{ body: '{"route":"b","instances":[[1,2]]}' }, ok('{"predictions":[[3.0,6.0]]}')],
      [{ body: '{"route":"z","instances":[[1,2]]}' }, routingError(404, 'None of the routes matched with the switch condition')],
      [{ body: 'not json' }, routingError(404, 'None of the routes matched with the switch condition')],
    ],
  },
  {
    name: 'Ensemble: answers merged by step name, re-encoded as Go does',
    graph: (s) => ({
      nodes: {
        root: {
          routerType: 'Ensemble',
          steps: [
            { name: 'twice', serviceUrl: s.v1('double') },
            { name: 'thrice', serviceUrl: s.v1('triple') },
          ],
        },
      },
    }),
    requests: [[{ body: V1 }, ok('{"thrice":{"predictions":[[3,6]]},"twice":{"predictions":[[2,4]]}}')]],
  },
  {
    name: 'Ensemble: unnamed steps are keyed by index; V2 answers merge whole',
    graph: (s) => ({ nodes: { root: { routerType: 'Ensemble', steps: [{ serviceUrl: s.v2('double') }, { serviceUrl: s.v2('triple') }] } } }),
    requests: [
      [
        { body: V2 },
        ok(
          '{"0":{"id":"req-1","model_name":"double","model_version":null,"outputs":[{"data":[2,4],"datatype":"FP32","name":"y","parameters":null,"shape":[1,2]}],"parameters":null},"1":{"id":"req-1","model_name":"triple","model_version":null,"outputs":[{"data":[3,6],"datatype":"FP32","name":"y","parameters":null,"shape":[1,2]}],"parameters":null}}',
        ),
      ],
    ],
  },
  {
    name: "Ensemble: a Soft step's failure is merged like an answer",
    graph: (s) => ({
      nodes: {
        root: {
          routerType: 'Ensemble',
          steps: [
            { name: 'd', serviceUrl: s.v1('double') },
            { name: 'f', serviceUrl: s.v1('fail') },
          ],
        },
      },
    }),
    requests: [[{ body: V1 }, ok('{"d":{"predictions":[[2,4]]},"f":{"error":"fail always fails"}}')]],
  },
  {
    name: 'Ensemble: a Hard step that fails answers for the node',
    graph: (s) => ({
      nodes: {
        root: {
          routerType: 'Ensemble',
          steps: [
            { name: 'd', serviceUrl: s.v1('double') },
            { name: 'r', serviceUrl: s.v1('reject'), dependency: 'Hard' },
          ],
        },
      },
    }),
    requests: [[{ body: V1 }, { status: 400, contentType: JSON_TYPE, body: '{"error":"reject rejects every request"}' }]],
  },
  {
    name: 'Ensemble: a step with no answer fails the node',
    graph: (s) => ({
      nodes: {
        root: {
          routerType: 'Ensemble',
          steps: [
            { name: 'd', serviceUrl: s.v1('double') },
            { name: 'x', serviceUrl: s.refused },
          ],
        },
      },
    }),
    requests: [[{ body: V1 }, routingError(500, (s) => refusedCause(s.refused))]],
  },
  {
    name: 'Splitter: all the weight on one step',
    graph: (s) => ({
      nodes: {
        root: {
          routerType: 'Splitter',
          steps: [
            { serviceUrl: s.v1('double'), weight: 0 },
            { serviceUrl: s.v1('triple'), weight: 100 },
          ],
        },
      },
    }),
    requests: [
      [{ body: V1 }, ok('{"predictions":[[3.0,6.0]]}')],
      [{ body: V1 }, ok('{"predictions":[[3.0,6.0]]}')],
    ],
  },
  {
    name: 'Splitter: no weight, no route',
    graph: (s) => ({
      nodes: {
        root: {
          routerType: 'Splitter',
          steps: [
            { serviceUrl: s.v1('double'), weight: 0 },
            { serviceUrl: s.v1('triple'), weight: 0 },
          ],
        },
      },
    }),
    requests: [[{ body: V1 }, routingError(500, 'no route was selected by the splitter')]],
  },
  {
    name: 'Nested nodes: an ensemble inside a sequence, a failing child node is a 500',
    graph: (s) => ({
      nodes: {
        root: { routerType: 'Sequence', steps: [{ serviceUrl: s.v1('double') }, { nodeName: 'both', data: '$response', mapPredictionsToInstances: true }] },
        both: {
          routerType: 'Ensemble',
          steps: [
            { name: 'd', serviceUrl: s.v1('double') },
            { name: 't', serviceUrl: s.v1('triple') },
          ],
        },
      },
    }),
    requests: [[{ body: V1 }, ok('{"d":{"predictions":[[4,8]]},"t":{"predictions":[[6,12]]}}')]],
  },
  {
    name: 'Nested nodes: a child Switch matching nothing fails its parent with 500, not 404',
    graph: (s) => ({
      nodes: {
        root: { routerType: 'Sequence', steps: [{ nodeName: 'pick' }] },
        pick: { routerType: 'Switch', steps: [{ serviceUrl: s.v1('double'), condition: SWITCH_A }] },
      },
    }),
    requests: [[{ body: '{"route":"z","instances":[[1,2]]}' }, routingError(500, 'None of the routes matched with the switch condition')]],
  },
  {
    name: 'An unknown router type, and a graph without a root node',
    graph: (s) => ({ nodes: { root: { routerType: 'Broadcast', steps: [{ serviceUrl: s.v1('double') }] } } }),
    requests: [[{ body: V1 }, routingError(500, 'invalid route type: Broadcast')]],
  },
  {
    name: 'A graph without a root node',
    graph: (s) => ({ nodes: { main: { routerType: 'Sequence', steps: [{ serviceUrl: s.v1('double') }] } } }),
    requests: [[{ body: V1 }, routingError(500, 'invalid route type: ')]],
  },
  {
    name: 'A step that cannot be reached',
    graph: (s) => sequence({ serviceUrl: s.refused }),
    requests: [[{ body: V1 }, routingError(500, (s) => refusedCause(s.refused))]],
  },
  {
    name: 'A step with no URL (serviceName left unresolved)',
    graph: () => sequence({ serviceName: 'not-resolved' }),
    requests: [[{ body: V1 }, routingError(500, 'Post "": unsupported protocol scheme ""')]],
  },
  {
    name: 'A step past routerTimeouts.serviceClient',
    held: true,
    graph: (s) => ({ ...sequence({ serviceUrl: s.v1('held') }), routerTimeouts: { serviceClient: 1 } }),
    requests: [[{ body: V1 }, routingError(500, (s) => `Post "${s.v1('held')}": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`)]],
  },
  {
    name: 'Any method and path reach the graph',
    graph: (s) => sequence({ serviceUrl: s.v1('double') }),
    requests: [
      [{ method: 'PUT', path: '/v2/models/anything/infer', body: V1 }, ok('{"predictions":[[2.0,4.0]]}')],
      [{ method: 'POST', path: '/some/where?x=1', body: V1 }, ok('{"predictions":[[2.0,4.0]]}')],
    ],
  },
  {
    name: 'PROPAGATE_HEADERS: matching headers reach every step, others do not',
    propagate: 'X-Tag,^Unused$',
    graph: (s) => sequence({ serviceUrl: s.v1('headers') }),
    requests: [[{ body: V1, headers: { 'x-tag': 't1', 'x-other': 'o1' } }, ok('{"predictions":["x-tag=t1","x-other=","x-request-id="]}')]],
  },
];

export function refusedCause(url: string): string {
  const port = new URL(url).port;
  return `Post "${url}": dial tcp 127.0.0.1:${port}: connect: connection refused`;
}

/**
 * Every condition the router tests route on, with the documents they are evaluated
 * against; router/gjson/gjson.test.ts checks each against gjson itself, so a router test
 * never rests on a condition the port and gjson read differently.
 */
export interface ConditionCase {
  readonly condition: string;
  readonly body: string;
}

const REQUEST_A = '{"route":"a","instances":[[6.8,2.8,4.8,1.4]]}';
const REQUEST_B = '{"route":"b","instances":[[5.1,3.5,1.4,0.2]]}';
const REQUEST_NONE = '{"route":"z","instances":[[1,2,3,4]]}';

/** Switch steps: the first condition that exists in the request picks the step. */
export const SWITCH_A = '[@this].#(route=="a")';
export const SWITCH_B = '[@this].#(route=="b")';
/** Sequence step conditions, evaluated on the previous step's answer ([[2.0,4.0]] in the tests). */
export const HAS_MID_PREDICTION = 'predictions.0.#(>3)';
export const HAS_LARGE_PREDICTION = 'predictions.0.#(>100)';
/** gRPC Switch steps: read on the V2 JSON form of the request. */
export const GRPC_ROUTE_A = '[@this].#(parameters.route=="a")';
export const GRPC_ROUTE_B = '[@this].#(parameters.route=="b")';
/** The real-node suite (test/cluster/node/inference-graph.test.ts). */
export const IS_SETOSA = 'predictions.#(=="setosa")';
export const ROUTE_NAMES = '[@this].#(route=="names")';
export const ROUTE_LABELS = '[@this].#(route=="labels")';
/** Binary-extension Switch: read on the JSON header. */
export const HAS_INPUT_X = 'inputs.#(name=="x")';

export const CONDITION_CASES: readonly ConditionCase[] = [
  ...[REQUEST_A, REQUEST_B, REQUEST_NONE, '{}', '[]', 'not json'].flatMap((body) => [
    { condition: SWITCH_A, body },
    { condition: SWITCH_B, body },
  ]),
  ...['{"predictions":[[2.0,4.0]]}', '{"predictions":[]}', '{"error":"x"}'].flatMap((body) => [
    { condition: HAS_MID_PREDICTION, body },
    { condition: HAS_LARGE_PREDICTION, body },
  ]),
  ...['{"model_name":"m","id":null,"parameters":{"route":"a"},"inputs":[],"outputs":[]}', '{"model_name":"m","id":null,"parameters":null,"inputs":[],"outputs":[]}'].flatMap(
    (body) => [
      { condition: GRPC_ROUTE_A, body },
      { condition: GRPC_ROUTE_B, body },
    ],
  ),
  ...['{"inputs":[{"name":"x","shape":[1,2],"datatype":"FP32","parameters":{"binary_data_size":8}}]}', '{"inputs":[]}'].map((body) => ({ condition: HAS_INPUT_X, body })),
  ...['{"predictions":["setosa"]}', '{"predictions":["versicolor"]}', '{"predictions":[1]}'].map((body) => ({ condition: IS_SETOSA, body })),
  ...['{"instances":[[51,35,14,2]],"route":"names"}', '{"instances":[[51,35,14,2]],"route":"labels"}', '{"instances":[[51,35,14,2]]}'].flatMap((body) => [
    { condition: ROUTE_NAMES, body },
    { condition: ROUTE_LABELS, body },
  ]),
];

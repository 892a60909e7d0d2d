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
/** Sequence step conditions, evaluated on the previous step's answer. */
export const HAS_POSITIVE_PREDICTION = 'predictions.#(>0)';
export const HAS_LABEL_OUTPUT = 'outputs.#(name=="label")';

export const CONDITION_CASES: readonly ConditionCase[] = [
  ...[REQUEST_A, REQUEST_B, REQUEST_NONE, '{}', '[]', 'not json'].flatMap((body) => [
    { condition: SWITCH_A, body },
    { condition: SWITCH_B, body },
  ]),
  ...['{"predictions":[0,1]}', '{"predictions":[0,0]}', '{"predictions":[]}', '{"error":"x"}'].map((body) => ({ condition: HAS_POSITIVE_PREDICTION, body })),
  ...['{"outputs":[{"name":"label","data":[1]}]}', '{"outputs":[{"name":"probabilities"}]}'].map((body) => ({ condition: HAS_LABEL_OUTPUT, body })),
];

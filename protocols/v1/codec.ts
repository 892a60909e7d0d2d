/**
 * KServe V1 protocol: `{"instances": [...]}` or `{"inputs": [...]}` in, `{"predictions": [...]}`
 * out. V1 has no tensor metadata on the wire, so decoding takes the model's declared inputs:
 * - one input: the instances are stacked along the batch dimension of that input;
 * - several inputs: each instance is an object keyed by input name (row format), or
 *   `inputs` is an object of whole tensors keyed by name (columnar format).
 * The response carries the first output as nested lists.
 */
import { datatypeInfo } from '../datatypes.js';
import { errors } from '../errors.js';
import { floatsFromHalf, halfFromFloats } from '../half-float.js';
import { decodeJsonData, encodeJsonNested } from '../json/json-data.js';
import { DEFAULT_DECODE_LIMITS, type DecodeLimits } from '../limits.js';
import type { InferRequest, InferResponse, Tensor, TensorSpec } from '../tensor.js';
import { isObject, nestedShape } from '../json/json-values.js';

const isHalf = (d: string): d is 'FP16' | 'BF16' => d === 'FP16' || d === 'BF16';

function tensorFrom(spec: TensorSpec, shape: number[], data: unknown, limits: DecodeLimits): Tensor {
  // V1 has no binary form, so half-precision inputs travel as JSON numbers.
  const half = isHalf(spec.datatype) ? spec.datatype : undefined;
  const info = datatypeInfo(half === undefined ? spec.datatype : 'FP32');
  if (info === undefined) throw errors.internal(`model input '${spec.name}' has no datatype`);
  const decoded = decodeJsonData(spec.name, info, shape, data, limits.maxTensorElements);
  return {
    name: spec.name,
    datatype: spec.datatype,
    shape,
    data: half === undefined ? decoded : halfFromFloats(half, decoded as Float32Array),
  };
}

function stacked(spec: TensorSpec, rows: readonly unknown[], limits: DecodeLimits): Tensor {
  if (rows.length === 0) throw errors.invalidInput(`no instances for input '${spec.name}'`);
  return tensorFrom(spec, [rows.length, ...nestedShape(rows[0])], rows, limits);
}

export function decodeV1Request(doc: unknown, inputs: readonly TensorSpec[], limits: DecodeLimits = DEFAULT_DECODE_LIMITS): InferRequest {
  if (!isObject(doc)) throw errors.invalidInput('Unrecognized request format: the request must be a JSON object');
  const key = 'instances' in doc ? 'instances' : 'inputs' in doc ? 'inputs' : undefined;
  if (key === undefined) throw errors.invalidInput('Expected "instances" or "inputs" in the request body');
  const body = doc[key];

  if (key === 'inputs' && isObject(body)) {
    const tensors = Object.entries(body).map(([name, value]) => {
      const spec = inputs.find((s) => s.name === name);
      if (spec === undefined) throw errors.invalidInput(`Unexpected input '${name}'; expected inputs: ${inputs.map((s) => s.name).join(', ')}`);
      return tensorFrom(spec, nestedShape(value), value, limits);
    });
    return { inputs: tensors };
  }
  if (!Array.isArray(body)) throw errors.invalidInput(`Expected "${key}" to be a list`);

  if (body.length > 0 && body.every(isObject)) {
    return {
      inputs: inputs.map((spec) =>
        stacked(
          spec,
          body.map((row, i) => {
            const v = row[spec.name];
            if (v === undefined) throw errors.invalidInput(`instance ${i} has no value for input '${spec.name}'`);
            return v;
          }),
          limits,
        ),
      ),
    };
  }
  if (inputs.length !== 1) {
    throw errors.invalidInput(`model has ${inputs.length} inputs (${inputs.map((s) => s.name).join(', ')}); send each instance as an object keyed by input name`);
  }
  return { inputs: [stacked(inputs[0] as TensorSpec, body, limits)] };
}

export function encodeV1Response(response: InferResponse): string {
  const first = response.outputs[0];
  if (first === undefined) return '{"predictions":[]}';
  if (isHalf(first.datatype)) {
    const floats = floatsFromHalf(first.datatype, first.data as Uint16Array);
    return `{"predictions":${encodeJsonNested(first.name, 'FP32', first.shape, floats)}}`;
  }
  return `{"predictions":${encodeJsonNested(first.name, first.datatype, first.shape, first.data)}}`;
}

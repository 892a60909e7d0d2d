/**
 * TF Serving's V1 REST dialect (tensorflow.org/tfx/serving/api_rest), used for TensorFlow
 * models:
 * - request `{"signature_name"?, "instances": [...]}` (row format: one entry per instance,
 *   an object keyed by input alias when the signature has several inputs) or
 *   `{"signature_name"?, "inputs": {...} | value}` (columnar format: whole tensors);
 * - binary strings as `{"b64": "..."}`; plain JSON strings are UTF-8 text;
 * - response `{"predictions": ...}` for row requests (with several outputs: one object per
 *   instance keyed by output alias) and `{"outputs": ...}` for columnar ones (with several
 *   outputs: an object keyed by alias); string outputs whose alias ends in `_bytes`, and any
 *   that are not UTF-8, come back as `{"b64": "..."}`;
 * - `GET /v1/models/{name}/metadata` gives the signature defs.
 * The signature name travels to the backend as the `signature_name` request parameter.
 */
import { type Datatype, type TensorData, datatypeInfo } from '../datatypes.js';
import { errors } from '../errors.js';
import { decodeJsonData, encodeJsonNested } from '../json/json-data.js';
import { DEFAULT_DECODE_LIMITS, type DecodeLimits, MAX_RANK, checkedElementCount } from '../limits.js';
import { SIGNATURE_PARAMETER, selectSignature } from '../signature.js';
import type { InferResponse, SignatureDef, SignatureTensor, Tensor, TensorSpec } from '../tensor.js';
import type { V1Decoded, V1Dialect, V1Model } from './dialect.js';
import { isObject, nestedShape } from '../json/json-values.js';

type Format = 'row' | 'columnar';

function isB64(v: unknown): v is { b64: string } {
  return isObject(v) && typeof v['b64'] === 'string' && Object.keys(v).length === 1;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const utf8 = new TextEncoder();

function bytesData(name: string, shape: readonly number[], value: unknown, maxElements: number): Uint8Array[] {
  const count = checkedElementCount(shape, `input '${name}'`, maxElements);
  const out: Uint8Array[] = [];
  const walk = (v: unknown, depth: number): void => {
    if (Array.isArray(v)) {
      if (depth > MAX_RANK) throw errors.invalidInput(`input '${name}': value is nested more than ${MAX_RANK} levels deep`);
      for (const e of v) walk(e, depth + 1);
    } else if (typeof v === 'string') out.push(utf8.encode(v));
    else if (isB64(v)) {
      const text = v.b64.replace(/\s+/g, '');
      if (!BASE64.test(text) || text.length % 4 === 1) throw errors.invalidInput(`input '${name}': "b64" value is not valid base64`);
      out.push(new Uint8Array(Buffer.from(text, 'base64')));
    } else throw errors.invalidInput(`input '${name}': expected a string or {"b64": ...} for a DT_STRING tensor, got ${JSON.stringify(v)}`);
  };
  walk(value, 1);
  if (out.length !== count) throw errors.invalidInput(`input '${name}': shape [${shape.join(',')}] has ${count} elements but data has ${out.length}`);
  return out;
}

function tensorFrom(spec: TensorSpec, shape: number[], value: unknown, limits: DecodeLimits): Tensor {
  const max = limits.maxTensorElements;
  if (spec.datatype === 'BYTES') return { name: spec.name, datatype: 'BYTES', shape, data: bytesData(spec.name, shape, value, max) };
  const info = datatypeInfo(spec.datatype);
  if (info === undefined) throw errors.internal(`input '${spec.name}' has no datatype`);
  return { name: spec.name, datatype: spec.datatype, shape, data: decodeJsonData(spec.name, info, shape, value, max) };
}

function stacked(spec: TensorSpec, rows: readonly unknown[], limits: DecodeLimits): Tensor {
  return tensorFrom(spec, [rows.length, ...nestedShape(rows[0])], rows, limits);
}

function unknownInput(name: string, sig: SignatureDef): never {
  throw errors.invalidInput(`input '${name}' is not in signature '${sig.name}'; its inputs: ${sig.inputs.map((s) => s.name).join(', ')}`);
}

function signaturesOf(model: V1Model): readonly SignatureDef[] {
  return model.signatures ?? [{ name: 'serving_default', inputs: model.inputs, outputs: model.outputs }];
}

function signatureFor(doc: Record<string, unknown>, model: V1Model): { sig: SignatureDef; named: boolean } {
  const wanted = doc[SIGNATURE_PARAMETER];
  const sig = selectSignature(signaturesOf(model), wanted);
  return { sig, named: !(wanted === undefined || wanted === null || wanted === '') };
}

function decodeRow(instances: unknown, sig: SignatureDef, limits: DecodeLimits): Tensor[] {
  if (!Array.isArray(instances)) throw errors.invalidInput('"instances" must be a list');
  if (instances.length === 0) throw errors.invalidInput('"instances" is empty');
  const keyed = instances.every((i) => isObject(i) && !isB64(i));
  if (!keyed) {
    if (sig.inputs.length !== 1) {
      throw errors.invalidInput(
        `signature '${sig.name}' has ${sig.inputs.length} inputs (${sig.inputs.map((s) => s.name).join(', ')}); send each instance as an object keyed by input name`,
      );
    }
    return [stacked(sig.inputs[0] as TensorSpec, instances, limits)];
  }
  const rows = instances as Array<Record<string, unknown>>;
  for (const row of rows) for (const k of Object.keys(row)) if (!sig.inputs.some((s) => s.name === k)) unknownInput(k, sig);
  return sig.inputs.map((spec) =>
    stacked(
      spec,
      rows.map((row, i) => {
        const v = row[spec.name];
        if (v === undefined) throw errors.invalidInput(`instance ${i} has no value for input '${spec.name}'`);
        return v;
      }),
      limits,
    ),
  );
}

function decodeColumnar(inputs: unknown, sig: SignatureDef, limits: DecodeLimits): Tensor[] {
  if (!isObject(inputs) || isB64(inputs)) {
    if (sig.inputs.length !== 1) {
      throw errors.invalidInput(`signature '${sig.name}' has ${sig.inputs.length} inputs; "inputs" must be an object keyed by input name`);
    }
    return [tensorFrom(sig.inputs[0] as TensorSpec, nestedShape(inputs), inputs, limits)];
  }
  return Object.entries(inputs).map(([name, value]) => {
    const spec = sig.inputs.find((s) => s.name === name) ?? unknownInput(name, sig);
    return tensorFrom(spec, nestedShape(value), value, limits);
  });
}

// ----------------------------------------------------------------------------- encoding

const utf8Strict = new TextDecoder('utf-8', { fatal: true });

function bytesJson(alias: string, b: Uint8Array): string {
  if (!alias.endsWith('_bytes')) {
    try {
      return JSON.stringify(utf8Strict.decode(b));
    } catch {
      // not UTF-8: fall through to b64, which is lossless
    }
  }
  return `{"b64":${JSON.stringify(Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('base64'))}}`;
}

function nestedJson(t: { name: string; datatype: Datatype; shape: readonly number[]; data: TensorData }): string {
  if (t.datatype !== 'BYTES') return encodeJsonNested(t.name, t.datatype, t.shape, t.data);
  const data = t.data as Uint8Array[];
  if (t.shape.length === 0) return bytesJson(t.name, data[0] as Uint8Array);
  let idx = 0;
  const build = (dim: number): string => {
    const n = t.shape[dim] as number;
    const parts: string[] = new Array<string>(n);
    for (let i = 0; i < n; i++) parts[i] = dim === t.shape.length - 1 ? bytesJson(t.name, data[idx++] as Uint8Array) : build(dim + 1);
    return `[${parts.join(',')}]`;
  };
  return build(0);
}

/** Instance `i` of a batched output (its first dimension). */
function instance(t: Tensor, i: number): Tensor {
  const shape = t.shape.slice(1);
  const n = shape.reduce((a, b) => a * b, 1);
  const data = Array.isArray(t.data) ? t.data.slice(i * n, (i + 1) * n) : t.data.subarray(i * n, (i + 1) * n);
  return { name: t.name, datatype: t.datatype, shape, data: data };
}

function encodeRow(outputs: readonly Tensor[]): string {
  if (outputs.length === 1) return `{"predictions":${nestedJson(outputs[0] as Tensor)}}`;
  const batch = outputs[0]?.shape[0];
  for (const o of outputs) {
    if (o.shape.length === 0 || o.shape[0] !== batch) {
      throw errors.invalidInput(`outputs of this signature do not share a batch dimension ('${o.name}' has shape [${o.shape.join(',')}]); use the columnar format ("inputs")`);
    }
  }
  const rows: string[] = [];
  for (let i = 0; i < (batch ?? 0); i++) {
    rows.push(`{${outputs.map((o) => `${JSON.stringify(o.name)}:${nestedJson(instance(o, i))}`).join(',')}}`);
  }
  return `{"predictions":[${rows.join(',')}]}`;
}

function encodeColumnar(outputs: readonly Tensor[]): string {
  if (outputs.length === 1) return `{"outputs":${nestedJson(outputs[0] as Tensor)}}`;
  return `{"outputs":{${outputs.map((o) => `${JSON.stringify(o.name)}:${nestedJson(o)}`).join(',')}}}`;
}

// ----------------------------------------------------------------------------- metadata

const TF_DTYPES: Readonly<Record<Datatype, string>> = {
  BOOL: 'DT_BOOL',
  UINT8: 'DT_UINT8',
  UINT16: 'DT_UINT16',
  UINT32: 'DT_UINT32',
  UINT64: 'DT_UINT64',
  INT8: 'DT_INT8',
  INT16: 'DT_INT16',
  INT32: 'DT_INT32',
  INT64: 'DT_INT64',
  FP16: 'DT_HALF',
  BF16: 'DT_BFLOAT16',
  FP32: 'DT_FLOAT',
  FP64: 'DT_DOUBLE',
  BYTES: 'DT_STRING',
};

function tensorInfo(t: SignatureTensor): object {
  return {
    dtype: t.tfDtype ?? TF_DTYPES[t.datatype],
    tensor_shape: { dim: t.shape.map((d) => ({ size: String(d), name: '' })), unknown_rank: false },
    name: t.tensorName ?? `${t.name}:0`,
  };
}

function signatureDefJson(sig: SignatureDef): object {
  return {
    inputs: Object.fromEntries(sig.inputs.map((t) => [t.name, tensorInfo(t)])),
    outputs: Object.fromEntries(sig.outputs.map((t) => [t.name, tensorInfo(t)])),
    method_name: 'tensorflow/serving/predict',
  };
}

export const tfServingDialect: V1Dialect = {
  name: 'tf-serving',

  decode(doc: unknown, model: V1Model, limits: DecodeLimits = DEFAULT_DECODE_LIMITS): V1Decoded {
    if (!isObject(doc)) throw errors.invalidInput('JSON Value: the request body must be a JSON object');
    const { sig, named } = signatureFor(doc, model);
    const hasInstances = 'instances' in doc;
    const hasInputs = 'inputs' in doc;
    if (hasInstances && hasInputs) throw errors.invalidInput('Only one of "instances" or "inputs" may be specified');
    if (!hasInstances && !hasInputs) throw errors.invalidInput('Missing "instances" or "inputs" key');
    const format: Format = hasInstances ? 'row' : 'columnar';
    const inputs = format === 'row' ? decodeRow(doc['instances'], sig, limits) : decodeColumnar(doc['inputs'], sig, limits);
    return { request: { inputs, ...(named ? { parameters: { [SIGNATURE_PARAMETER]: sig.name } } : {}) }, format };
  },

  encode(response: InferResponse, decoded: V1Decoded): string {
    return decoded.format === 'columnar' ? encodeColumnar(response.outputs) : encodeRow(response.outputs);
  },

  metadata(model: V1Model): unknown {
    const sigs = signaturesOf(model);
    return {
      model_spec: { name: model.name, signature_name: '', version: model.version ?? '' },
      metadata: { signature_def: { signature_def: Object.fromEntries(sigs.map((s) => [s.name, signatureDefJson(s)])) } },
    };
  },
};

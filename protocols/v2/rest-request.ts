/**
 * V2 REST request decoding: JSON (`application/json`) and the binary tensor data extension
 * (JSON header of `Inference-Header-Content-Length` bytes followed by raw tensors).
 */
import { errors } from '../errors.js';
import { InputHeaderDecoder } from '../input-header.js';
import { decodeJsonData } from '../json/json-data.js';
import { placeholderArray, splitJson } from '../json/json-split.js';
import { DEFAULT_DECODE_LIMITS, type DecodeLimits, checkListLength } from '../limits.js';
import { parseParameters } from '../parameters.js';
import { decodeRawTensor } from '../raw-tensor.js';
import type { InferRequest, RequestedOutput, Tensor } from '../tensor.js';
import { isObject } from '../json/json-values.js';

export const HEADER_LENGTH_HEADER = 'inference-header-content-length';

/** Parses a JSON document, mapping syntax errors to the anchor's 400 message. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw errors.invalidInput(`Unrecognized request format: ${(e as Error).message}`);
  }
}

/**
 * Parses the value of the Inference-Header-Content-Length header. Returns undefined when
 * absent; rejects values that are not integers or that point past the body.
 */
export function parseHeaderLength(header: string | string[] | undefined, bodyLength: number): number | undefined {
  if (header === undefined) return undefined;
  const raw = Array.isArray(header) ? header[0] : header;
  if (raw === undefined || !/^\d+$/.test(raw.trim())) {
    throw errors.invalidInput(`${HEADER_LENGTH_HEADER} header must be a non-negative integer, got '${String(raw)}'`);
  }
  const n = Number(raw.trim());
  if (n > bodyLength) {
    throw errors.invalidInput(`${HEADER_LENGTH_HEADER} header is ${n} but the request body has only ${bodyLength} bytes`);
  }
  return n;
}

function decodeOutputs(value: unknown, limits: DecodeLimits): RequestedOutput[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) throw errors.invalidInput(`'outputs' must be an array`);
  checkListLength(value.length, 'outputs', limits.maxOutputs);
  return value.map((o, i) => {
    if (!isObject(o) || typeof o['name'] !== 'string') {
      throw errors.invalidInput(`outputs[${i}]: 'name' must be a string`);
    }
    return { name: o['name'], parameters: parseParameters(o['parameters'], `output '${o['name']}'`) };
  });
}

/**
 * The JSON part of a body as JSON.parse gives it, except that large arrays that are
 * inputs' `data` stay as bytes (JsonNumberArray) for decodeJsonData to convert; undefined
 * whenever the split does not apply cleanly (the caller parses the whole text).
 */
function parseSplit(body: Uint8Array, jsonEnd: number): unknown {
  const split = splitJson(body, jsonEnd);
  if (split !== undefined) {
    let doc: unknown;
    try {
      doc = JSON.parse(split.skeleton);
    } catch {
      doc = undefined;
    }
    const inputs = isObject(doc) ? doc['inputs'] : undefined;
    if (Array.isArray(inputs)) {
      let placed = 0;
      for (const inp of inputs) {
        const arr = isObject(inp) ? placeholderArray(split, inp['data']) : undefined;
        if (arr !== undefined) {
          (inp as Record<string, unknown>)['data'] = arr;
          placed++;
        }
      }
      if (placed === split.arrays.length) return doc;
    }
  }
  return undefined;
}

function parseWhole(body: Uint8Array, jsonEnd: number): unknown {
  return parseJson(Buffer.from(body.buffer, body.byteOffset, jsonEnd).toString('utf8'));
}

/**
 * Decodes a V2 inference request body. `headerLength` is the parsed
 * Inference-Header-Content-Length (undefined for a pure JSON body). Binary input views
 * point into `body`, which the caller must keep alive for the request's lifetime.
 */
export function decodeRestInferRequest(body: Uint8Array, headerLength: number | undefined, limits: DecodeLimits = DEFAULT_DECODE_LIMITS): InferRequest {
  const jsonEnd = headerLength ?? body.byteLength;
  const split = parseSplit(body, jsonEnd);
  if (split !== undefined) {
    try {
      return decodeDocument(split, body, headerLength, limits);
    } catch {
      // A split body that fails is decoded again whole, so that a bad request gets the
      // error (and the message) of the first thing JSON.parse or the checks find wrong.
    }
  }
  return decodeDocument(parseWhole(body, jsonEnd), body, headerLength, limits);
}

function decodeDocument(doc: unknown, body: Uint8Array, headerLength: number | undefined, limits: DecodeLimits): InferRequest {
  const jsonEnd = headerLength ?? body.byteLength;
  if (!isObject(doc)) throw errors.invalidInput('Unrecognized request format: the request must be a JSON object');
  const rawInputs = doc['inputs'];
  if (!Array.isArray(rawInputs)) throw errors.invalidInput(`Expected "inputs" to be a list`);
  checkListLength(rawInputs.length, 'inputs', limits.maxInputs);

  const binary = body.subarray(jsonEnd);
  let cursor = 0;
  const headers = new InputHeaderDecoder(undefined, limits);
  const inputs: Tensor[] = rawInputs.map((inp: unknown, i: number): Tensor => {
    const obj = isObject(inp) ? inp : {};
    const { name, where, info, shape, count } = headers.decode(i, obj['name'], obj['datatype'], obj['shape']);
    const parameters = parseParameters(obj['parameters'], where);
    const binarySize = parameters?.['binary_data_size'];
    if (binarySize !== undefined) {
      if (typeof binarySize !== 'number' || !Number.isSafeInteger(binarySize) || binarySize < 0) {
        throw errors.invalidInput(`${where}: 'binary_data_size' must be a non-negative integer`);
      }
      if (headerLength === undefined) {
        throw errors.invalidInput(`${where} has binary_data_size but the request has no binary part (missing ${HEADER_LENGTH_HEADER} header)`);
      }
      if (obj['data'] !== undefined) throw errors.invalidInput(`${where} has both 'data' and 'binary_data_size'`);
      if (cursor + binarySize > binary.byteLength) {
        throw errors.invalidInput(`${where}: binary_data_size ${binarySize} runs past the end of the body (${binary.byteLength - cursor} bytes left)`);
      }
      const bytes = binary.subarray(cursor, cursor + binarySize);
      cursor += binarySize;
      const { binary_data_size: _drop, ...rest } = parameters as Record<string, unknown>;
      return {
        name,
        datatype: info.name,
        shape,
        data: decodeRawTensor(name, info, shape, bytes),
        parameters: Object.keys(rest).length > 0 ? (rest as typeof parameters) : undefined,
      };
    }
    if (obj['data'] === undefined) throw errors.invalidInput(`'data' field is missing for input '${name}'`);
    return { name, datatype: info.name, shape, data: decodeJsonData(name, info, shape, obj['data'], count), parameters };
  });
  if (cursor !== binary.byteLength) {
    throw errors.invalidInput(`request has ${binary.byteLength - cursor} bytes of binary data not claimed by any input's binary_data_size`);
  }
  const id = doc['id'];
  if (id !== undefined && id !== null && typeof id !== 'string') throw errors.invalidInput(`'id' must be a string`);
  return {
    id: typeof id === 'string' ? id : undefined,
    parameters: parseParameters(doc['parameters'], 'request'),
    inputs,
    outputs: decodeOutputs(doc['outputs'], limits),
  };
}

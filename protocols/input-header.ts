/**
 * The part of one request input that every wire format carries the same way: name,
 * datatype and shape. REST JSON, REST binary and gRPC all decode it here, so the checks and
 * their messages are one set; each codec then decodes the data its own way.
 */
import { type DatatypeInfo, datatypeInfo } from './datatypes.js';
import { errors } from './errors.js';
import { DEFAULT_DECODE_LIMITS, type DecodeLimits, MAX_RANK, checkedElementCount } from './limits.js';

export interface InputHeader {
  readonly name: string;
  /** How messages name the input: `input 'x'`. */
  readonly where: string;
  readonly info: DatatypeInfo;
  readonly shape: number[];
  /** Elements the shape declares, already checked against the request's limits. */
  readonly count: number;
}

/** `[2,3]`, as messages show shapes. */
export function shapeText(shape: readonly number[]): string {
  return `[${shape.join(',')}]`;
}

/** How one wire format gives a dimension: its value (NaN when unusable) and how messages show it. */
export interface DimReader {
  read(d: unknown): number;
  show(d: unknown): string;
}

/** JSON dimensions must be numbers; anything else is shown as the JSON it was. */
const JSON_DIM: DimReader = {
  read: (d) => (typeof d === 'number' ? d : Number.NaN),
  show: (d) => JSON.stringify(d),
};

/** Validates a shape: an array of non-negative safe integers. */
export function parseShape(value: unknown, where: string, dims: DimReader = JSON_DIM): number[] {
  if (!Array.isArray(value)) throw errors.invalidInput(`${where}: 'shape' must be an array of integers`);
  // Before the dims are copied: a shape is itself client data and may be long.
  if (value.length > MAX_RANK) {
    throw errors.invalidInput(`${where}: shape has ${value.length} dimensions; at most ${MAX_RANK} are allowed`);
  }
  return value.map((d: unknown) => {
    const n = dims.read(d);
    if (!Number.isSafeInteger(n) || n < 0) {
      throw errors.invalidInput(`${where}: 'shape' must hold non-negative integers, got ${dims.show(d)}`);
    }
    return n;
  });
}

/**
 * Decodes the inputs' headers of one request in order, refusing empty and repeated names,
 * and counts the elements they declare against the request's limit (overflow-safe), so a
 * codec may size storage by `count` once it has checked it against the bytes received.
 */
export class InputHeaderDecoder {
  readonly #seen = new Set<string>();
  readonly #dims: DimReader | undefined;
  readonly #limits: DecodeLimits;
  #total = 0;

  constructor(dims?: DimReader, limits: DecodeLimits = DEFAULT_DECODE_LIMITS) {
    this.#dims = dims;
    this.#limits = limits;
  }

  /** `index` is the input's position in the request, for inputs without a usable name. */
  decode(index: number, name: unknown, datatype: unknown, shape: unknown): InputHeader {
    if (typeof name !== 'string' || name === '') throw errors.invalidInput(`inputs[${index}]: 'name' must be a non-empty string`);
    const where = `input '${name}'`;
    if (this.#seen.has(name)) throw errors.invalidInput(`${where} appears more than once`);
    this.#seen.add(name);
    const info = typeof datatype === 'string' ? datatypeInfo(datatype) : undefined;
    if (info === undefined) throw errors.invalidInput(`${where}: invalid datatype ${JSON.stringify(datatype)}`);
    const dims = parseShape(shape, where, this.#dims);
    const max = this.#limits.maxTensorElements;
    const count = checkedElementCount(dims, where, max);
    this.#total += count;
    if (this.#total > max) {
      throw errors.limitExceeded(`${where}: the request's inputs declare more than ${max} elements together (limit --max_tensor_elements)`);
    }
    return { name, where, info, shape: dims, count };
  }
}

/**
 * InferInput and InferOutput, as in KServe's Python SDK (`kserve.InferInput`,
 * `kserve.InferOutput`): thin views over the neutral Tensor (protocols/tensor.ts), never a
 * second representation. Reading helpers (`asArray`, `asStrings`, `data`) and building
 * helpers (`setData`, the constructors) convert between JavaScript values and the storage
 * convention of protocols/datatypes.ts.
 */
import { type Datatype, type TensorData, datatypeInfo, elementCount } from '../../../protocols/datatypes.js';
import { floatsFromHalf, halfFromFloats } from '../../../protocols/half-float.js';
import type { Parameters, Tensor } from '../../../protocols/tensor.js';
import { InvalidInput } from './sdk-errors.js';

/** What `setData` accepts: storage as is, or plain values converted to the datatype's storage. */
export type TensorValues = TensorData | readonly number[] | readonly bigint[] | readonly boolean[] | readonly string[];

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Converts plain values into the storage of `datatype`; typed arrays of the right kind pass through. */
export function toTensorData(datatype: Datatype, values: TensorValues): TensorData {
  const info = datatypeInfo(datatype);
  if (info === undefined) throw new InvalidInput(`unknown datatype ${String(datatype)}`);
  if (info.arrayType === undefined) {
    return (values as readonly unknown[]).map((v) => (typeof v === 'string' ? encoder.encode(v) : v instanceof Uint8Array ? v : encoder.encode(String(v))));
  }
  if (ArrayBuffer.isView(values) && values instanceof info.arrayType) return values as TensorData;
  const plain = Array.from(values as ArrayLike<number | bigint | boolean>);
  if (datatype === 'FP16' || datatype === 'BF16') return halfFromFloats(datatype, Float32Array.from(plain, Number));
  if (info.bigint) return (info.arrayType as unknown as { from(v: ArrayLike<bigint>): TensorData }).from(plain.map((v) => BigInt(v as number)));
  return (info.arrayType as unknown as { from(v: ArrayLike<number>): TensorData }).from(plain.map(Number));
}

class TensorView {
  readonly name: string;
  readonly datatype: Datatype;
  #shape: readonly number[];
  #data: TensorData | undefined;
  parameters: Parameters | undefined;

  constructor(name: string, shape: readonly number[], datatype: Datatype, data?: TensorValues, parameters?: Parameters) {
    this.name = name;
    this.#shape = [...shape];
    this.datatype = datatype;
    this.parameters = parameters;
    if (data !== undefined) this.setData(data);
  }

  get shape(): readonly number[] {
    return this.#shape;
  }

  /** Storage as protocols/datatypes.ts defines it (a typed array; Uint8Array[] for BYTES). */
  get data(): TensorData {
    if (this.#data === undefined) throw new InvalidInput(`tensor '${this.name}' has no data`);
    return this.#data;
  }

  /** Sets the elements; their count must match the shape. */
  setData(values: TensorValues): this {
    const data = toTensorData(this.datatype, values);
    const expected = elementCount(this.#shape);
    if (data.length !== expected) {
      throw new InvalidInput(`tensor '${this.name}': ${data.length} elements do not fit shape [${this.#shape.join(',')}] (${expected})`);
    }
    this.#data = data;
    return this;
  }

  /** Changes the shape (same element count), e.g. to drop a batch dimension. */
  reshape(shape: readonly number[]): this {
    if (this.#data !== undefined && elementCount(shape) !== this.#data.length) {
      throw new InvalidInput(`tensor '${this.name}': cannot reshape ${this.#data.length} elements to [${shape.join(',')}]`);
    }
    this.#shape = [...shape];
    return this;
  }

  /**
   * The elements as a flat JavaScript array: numbers (FP16/BF16 decoded), bigints for
   * 64-bit integers, booleans for BOOL, strings (UTF-8) for BYTES.
   */
  asArray(): Array<number | bigint | boolean | string> {
    const data = this.data;
    if (this.datatype === 'BYTES') return this.asStrings();
    if (this.datatype === 'BOOL') return Array.from(data as Uint8Array, (v) => v !== 0);
    if (this.datatype === 'FP16' || this.datatype === 'BF16') return Array.from(floatsFromHalf(this.datatype, data as Uint16Array));
    return Array.from(data as ArrayLike<number | bigint>);
  }

  /** The elements as numbers (64-bit integers converted; may lose precision past 2^53). */
  asNumbers(): number[] {
    return this.asArray().map(Number);
  }

  /** BYTES elements decoded as UTF-8. */
  asStrings(): string[] {
    if (this.datatype !== 'BYTES') throw new InvalidInput(`tensor '${this.name}' is ${this.datatype}, not BYTES`);
    return (this.data as Uint8Array[]).map((b) => decoder.decode(b));
  }

  /** The neutral tensor the transports encode (shares the storage). */
  toTensor(): Tensor {
    return { name: this.name, datatype: this.datatype, shape: this.#shape, data: this.data, parameters: this.parameters };
  }
}

/** One request input (`kserve.InferInput`). */
export class InferInput extends TensorView {
  /** Wraps a decoded tensor without copying its storage (read-only: it may view the request body). */
  static fromTensor(t: Tensor): InferInput {
    const input = new InferInput(t.name, t.shape, t.datatype, undefined, t.parameters);
    return input.setData(t.data);
  }
}

/** One response output (`kserve.InferOutput`). */
export class InferOutput extends TensorView {
  static fromTensor(t: Tensor): InferOutput {
    return new InferOutput(t.name, t.shape, t.datatype, undefined, t.parameters).setData(t.data);
  }
}

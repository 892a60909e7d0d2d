/**
 * InferTensorContents from the wire. A tensor's `contents` may occur more than once (proto
 * merges repeated occurrences of a message field: repeated fields concatenate), so one
 * builder collects every occurrence and `finish` produces the message once.
 *
 * Numeric fields come out as typed arrays (Int32Array for int_contents, BigInt64Array for
 * int64_contents, Float32Array for fp32_contents, ...), which the codec copies into tensor
 * storage in bulk or adopts as is; absent fields are empty arrays, as proto-loader gives.
 */
import type { InferTensorContentsMessage } from '../messages.js';
import { Wire, type WireReader } from './reader.js';
import { DOUBLE, FLOAT, INT32, INT64, RepeatedNumbers, UINT32, UINT64 } from './repeated.js';

function bool(r: WireReader): boolean {
  r.varint64();
  return (r.lo | r.hi) !== 0;
}

export class ContentsBuilder {
  private bools: boolean[] | undefined;
  private ints: RepeatedNumbers<Int32Array> | undefined;
  private int64s: RepeatedNumbers<BigInt64Array> | undefined;
  private uints: RepeatedNumbers<Uint32Array> | undefined;
  private uint64s: RepeatedNumbers<BigUint64Array> | undefined;
  private fp32s: RepeatedNumbers<Float32Array> | undefined;
  private fp64s: RepeatedNumbers<Float64Array> | undefined;
  private bytes: Buffer[] | undefined;

  /** Reads one InferTensorContents spanning the reader's current span. */
  read(r: WireReader): void {
    while (r.pos < r.end) {
      const t = r.tag();
      const field = t >>> 3;
      const wire = t & 7;
      switch (field) {
        case 1:
          this.readBools(r, wire);
          break;
        case 2:
          if (!(this.ints ??= new RepeatedNumbers(INT32)).read(r, wire)) r.wrongType(field, wire);
          break;
        case 3:
          if (!(this.int64s ??= new RepeatedNumbers(INT64)).read(r, wire)) r.wrongType(field, wire);
          break;
        case 4:
          if (!(this.uints ??= new RepeatedNumbers(UINT32)).read(r, wire)) r.wrongType(field, wire);
          break;
        case 5:
          if (!(this.uint64s ??= new RepeatedNumbers(UINT64)).read(r, wire)) r.wrongType(field, wire);
          break;
        case 6:
          if (!(this.fp32s ??= new RepeatedNumbers(FLOAT)).read(r, wire)) r.wrongType(field, wire);
          break;
        case 7:
          if (!(this.fp64s ??= new RepeatedNumbers(DOUBLE)).read(r, wire)) r.wrongType(field, wire);
          break;
        case 8:
          if (wire !== Wire.Len) r.wrongType(field, wire);
          (this.bytes ??= []).push(r.bytes());
          break;
        default:
          r.skip(wire);
      }
    }
  }

  private readBools(r: WireReader, wire: number): void {
    const out = (this.bools ??= []);
    if (wire === Wire.Varint) {
      out.push(bool(r));
    } else if (wire === Wire.Len) {
      const outer = r.enter(r.length());
      while (r.pos < r.end) out.push(bool(r));
      r.leave(outer);
    } else {
      r.wrongType(1, wire);
    }
  }

  finish(): InferTensorContentsMessage {
    return {
      bool_contents: this.bools ?? [],
      int_contents: this.ints?.finish() ?? [],
      int64_contents: this.int64s?.finish() ?? [],
      uint_contents: this.uints?.finish() ?? [],
      uint64_contents: this.uint64s?.finish() ?? [],
      fp32_contents: this.fp32s?.finish() ?? [],
      fp64_contents: this.fp64s?.finish() ?? [],
      bytes_contents: this.bytes ?? [],
    };
  }
}

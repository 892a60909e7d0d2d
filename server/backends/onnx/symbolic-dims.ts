/**
 * ONNX models name their dynamic dimensions (`batch`, `seq_len`); one name on several inputs
 * (or axes) means one size. A request that gives them different sizes ([2,16] and [3,16] for
 * two inputs of shape [batch,16]) is the client's mistake, found here as a 400 naming both
 * tensors, instead of onnxruntime's broadcast failure deep in the graph (a 500).
 */
import { errors } from '../../../protocols/errors.js';
import type { Tensor } from '../../../protocols/tensor.js';
import type { WireValueInfo } from './onnx-messages.js';

interface Place {
  readonly input: string;
  readonly axis: number;
}

/** The dimension names given to more than one (input, axis), with those places. */
export type SharedDims = ReadonlyMap<string, readonly Place[]>;

export function sharedDims(inputs: readonly WireValueInfo[]): SharedDims {
  const places = new Map<string, Place[]>();
  for (const info of inputs) {
    info.shape.forEach((d, axis) => {
      if (typeof d !== 'string' || d === '') return;
      const list = places.get(d) ?? [];
      list.push({ input: info.name, axis });
      places.set(d, list);
    });
  }
  for (const [name, list] of places) if (list.length < 2) places.delete(name);
  return places;
}

/** Throws InvalidInput when the request gives one named dimension two sizes. */
export function checkSharedDims(dims: SharedDims, inputs: readonly Tensor[]): void {
  for (const [name, places] of dims) {
    let first: { place: Place; size: number } | undefined;
    for (const place of places) {
      const size = inputs.find((t) => t.name === place.input)?.shape[place.axis];
      if (size === undefined) continue;
      if (first === undefined) first = { place, size };
      else if (size !== first.size) {
        throw errors.invalidInput(
          `input '${place.input}' has ${size} along dimension '${name}' (axis ${place.axis}) but input '${first.place.input}' has ${first.size} (axis ${first.place.axis}): the model gives them one size`,
        );
      }
    }
  }
}

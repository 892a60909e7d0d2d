/**
 * Checks a decoded request against a model's declared inputs and outputs before it reaches
 * a backend, so that every mismatch is a 400 naming the tensor rather than a runtime error.
 */
import { errors } from '../protocols/errors.js';
import { shapeText } from '../protocols/input-header.js';
import type { InferRequest, TensorSpec } from '../protocols/tensor.js';

export function validateRequest(model: string, request: InferRequest, inputs: readonly TensorSpec[], outputs: readonly TensorSpec[], maxBatchSize: number): void {
  for (const t of request.inputs) {
    const spec = inputs.find((s) => s.name === t.name);
    if (spec === undefined) {
      throw errors.invalidInput(`Unexpected input '${t.name}' for model ${model}; expected inputs: ${inputs.map((s) => s.name).join(', ')}`);
    }
    if (spec.datatype !== t.datatype) {
      throw errors.invalidInput(`input '${t.name}': datatype ${t.datatype} does not match the model's ${spec.datatype}`);
    }
    // A declared rank of 0 with dynamic dims means the runtime does not know the shape.
    const fits = spec.shape.length === t.shape.length && spec.shape.every((d, i) => d < 0 || d === t.shape[i]);
    if (!fits) {
      throw errors.invalidInput(`input '${t.name}': shape ${shapeText(t.shape)} does not match the model's ${shapeText(spec.shape)} (-1 is any size)`);
    }
    if (maxBatchSize > 0 && (t.shape[0] ?? 0) > maxBatchSize) {
      throw errors.invalidInput(`input '${t.name}': batch size ${t.shape[0]} exceeds the model's max_batch_size ${maxBatchSize}`);
    }
  }
  for (const s of inputs) {
    if (!request.inputs.some((t) => t.name === s.name)) {
      throw errors.invalidInput(`model ${model} requires input '${s.name}' (${s.datatype} ${shapeText(s.shape)})`);
    }
  }
  const requested = new Set<string>();
  for (const o of request.outputs ?? []) {
    if (requested.has(o.name)) throw errors.invalidInput(`output '${o.name}' is requested more than once`);
    requested.add(o.name);
    if (!outputs.some((s) => s.name === o.name)) {
      throw errors.invalidInput(`Unexpected inference output '${o.name}' for model ${model}; model outputs: ${outputs.map((s) => s.name).join(', ')}`);
    }
  }
}

/**
 * Reads config.pbtxt's `model_warmup` (Triton's ModelWarmup): samples the server runs on
 * every instance of a version before it is READY. `inputs` is a protobuf map, written
 * `inputs { key: "x" value: { data_type: TYPE_FP32 dims: [ 4 ] zero_data: true } }`.
 * Checks here are the ones the text alone allows; whether the inputs fit the model is
 * checked against the loaded model (model-warmup.ts).
 */
import { datatypeOfTritonType } from '../../protocols/datatypes.js';
import type { WarmupData, WarmupInput, WarmupSample } from '../backend/model-config.js';
import type { PbMessage } from './pbtxt.js';
import { int, ints, one, str, sub } from './pbtxt-fields.js';

function data(m: PbMessage, where: string): WarmupData {
  const chosen: WarmupData[] = [];
  if (one(m, 'zero_data') === true) chosen.push({ kind: 'zero' });
  if (one(m, 'random_data') === true) chosen.push({ kind: 'random' });
  const file = str(m, 'input_data_file');
  if (file !== undefined) {
    // Read from the model's warmup/ folder: a name that leaves it is refused.
    if (file === '' || file.startsWith('/') || file.split(/[\\/]/).includes('..'))
      throw new Error(`config.pbtxt: ${where}: input_data_file '${file}' must name a file in the warmup/ folder`);
    chosen.push({ kind: 'file', file });
  }
  if (chosen.length !== 1) throw new Error(`config.pbtxt: ${where} needs exactly one of zero_data: true, random_data: true or input_data_file`);
  return chosen[0] as WarmupData;
}

function input(v: PbMessage, sample: string): WarmupInput {
  const name = str(v, 'key');
  const value = one(v, 'value');
  if (name === undefined || value === undefined) throw new Error(`config.pbtxt: model_warmup '${sample}': inputs need 'key' and 'value { ... }'`);
  const m = sub(value, 'inputs');
  const where = `model_warmup '${sample}' input '${name}'`;
  const typeName = one(m, 'data_type');
  const datatype = typeof typeName === 'string' ? datatypeOfTritonType(typeName)?.name : undefined;
  if (datatype === undefined) throw new Error(`config.pbtxt: ${where} has unknown data_type ${typeof typeName === 'string' ? typeName : JSON.stringify(typeName)}`);
  return { name, datatype, dims: ints(m, 'dims', 0), data: data(m, where) };
}

export function readWarmup(msg: PbMessage): WarmupSample[] {
  return (msg.get('model_warmup') ?? []).map((v) => {
    const m = sub(v, 'model_warmup');
    const name = str(m, 'name');
    if (name === undefined || name === '') throw new Error(`config.pbtxt: every model_warmup needs a name`);
    const batchSize = int(m, 'batch_size', 1);
    if (batchSize < 1) throw new Error(`config.pbtxt: model_warmup '${name}': batch_size must be >= 1`);
    const times = int(m, 'count', 0);
    if (times < 0) throw new Error(`config.pbtxt: model_warmup '${name}': count must be >= 0`);
    // Triton: 0 (the default) runs the sample once.
    const count = Math.max(1, times);
    const inputs = (m.get('inputs') ?? []).map((i) => input(sub(i, 'inputs'), name));
    if (inputs.length === 0) throw new Error(`config.pbtxt: model_warmup '${name}' has no inputs`);
    return { name, batchSize, inputs, count };
  });
}

/**
 * Reads a model's `config.pbtxt` into its ModelConfig (server/backend/model-config.ts): the subset
 * of Triton's model configuration this server honours. See docs/model-repository.md for the
 * format. Unknown fields are ignored with a warning by the caller; malformed known fields
 * fail the model's load with a clear message.
 */
import { readFile } from 'node:fs/promises';
import { datatypeOfTritonType } from '../../protocols/datatypes.js';
import type { TensorSpec } from '../../protocols/tensor.js';
import type { ModelConfig } from '../backend/model-config.js';
import { readInstanceGroups } from './config-instance-groups.js';
import { readWarmup } from './config-warmup.js';
import { type PbMessage, parsePbtxt } from './pbtxt.js';
import { int, one, str, sub } from './pbtxt-fields.js';
import { parseVersionLabels, parseVersionPolicy } from './version-config.js';

const KNOWN = new Set([
  'name',
  'platform',
  'backend',
  'max_batch_size',
  'input',
  'output',
  'dynamic_batching',
  'parameters',
  'instance_group',
  'model_warmup',
  'version_policy',
  'version_labels',
]);

function tensors(msg: PbMessage, key: 'input' | 'output'): TensorSpec[] | undefined {
  const list = msg.get(key);
  if (list === undefined) return undefined;
  return list.map((v) => {
    const m = sub(v, key);
    const name = str(m, 'name');
    if (name === undefined) throw new Error(`config.pbtxt: every ${key} needs a name`);
    const typeName = one(m, 'data_type');
    const datatype = typeof typeName === 'string' ? datatypeOfTritonType(typeName)?.name : undefined;
    if (datatype === undefined) throw new Error(`config.pbtxt: ${key} '${name}' has unknown data_type ${typeof typeName === 'string' ? typeName : JSON.stringify(typeName)}`);
    const dims = (m.get('dims') ?? []).map((d) => {
      if (typeof d !== 'number' || !Number.isInteger(d) || d < -1) {
        throw new Error(`config.pbtxt: ${key} '${name}' has invalid dims`);
      }
      return d;
    });
    return { name, datatype, shape: dims };
  });
}

export function parseModelConfig(text: string): ModelConfig {
  return modelConfigOf(parsePbtxt(text));
}

/**
 * Reads a model configuration already parsed into protobuf's message form: config.pbtxt's
 * text (parseModelConfig) or Triton's JSON form of a load request's override (config-json.ts),
 * so both meet the same checks.
 */
export function modelConfigOf(msg: PbMessage): ModelConfig {
  const dynamic = one(msg, 'dynamic_batching');
  const dynamicBatching =
    dynamic === undefined
      ? undefined
      : {
          preferredBatchSizes: (sub(dynamic, 'dynamic_batching').get('preferred_batch_size') ?? []).map((v) => {
            if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) {
              throw new Error(`config.pbtxt: 'preferred_batch_size' must hold positive integers`);
            }
            return v;
          }),
          maxQueueDelayMicroseconds: int(sub(dynamic, 'dynamic_batching'), 'max_queue_delay_microseconds', 0),
        };
  const parameters = new Map<string, string>();
  for (const p of msg.get('parameters') ?? []) {
    const m = sub(p, 'parameters');
    const key = str(m, 'key');
    const value = one(m, 'value');
    const s = value instanceof Map ? str(value, 'string_value') : undefined;
    if (key === undefined || s === undefined) {
      throw new Error(`config.pbtxt: parameters need 'key' and 'value { string_value: ... }'`);
    }
    parameters.set(key, s);
  }
  const instances = readInstanceGroups(msg);
  const maxBatchSize = int(msg, 'max_batch_size', 0);
  if (maxBatchSize < 0) throw new Error('config.pbtxt: max_batch_size must be >= 0');
  return {
    name: str(msg, 'name'),
    backend: str(msg, 'backend') ?? str(msg, 'platform'),
    maxBatchSize,
    inputs: tensors(msg, 'input'),
    outputs: tensors(msg, 'output'),
    dynamicBatching,
    instanceGroups: instances.groups,
    warmup: readWarmup(msg),
    parameters,
    versionPolicy: parseVersionPolicy(msg.get('version_policy')),
    versionLabels: parseVersionLabels(msg.get('version_labels')),
    ignoredFields: [...[...msg.keys()].filter((k) => !KNOWN.has(k)), ...instances.ignored],
  };
}

/** Reads `<dir>/config.pbtxt` if present. */
export async function readModelConfig(dir: string): Promise<ModelConfig | undefined> {
  let text: string;
  try {
    text = await readFile(`${dir}/config.pbtxt`, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  return parseModelConfig(text);
}

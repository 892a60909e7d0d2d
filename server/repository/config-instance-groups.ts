/**
 * Reads config.pbtxt's `instance_group` (Triton's ModelInstanceGroup): how many instances
 * of each version to load, and where. The fields Triton has that this server does not act
 * on are returned as ignored (`instance_group.<field>`) so the caller can say so.
 */
import type { InstanceGroupConfig, InstanceKind } from '../backend/model-config.js';
import type { PbMessage } from './pbtxt.js';
import { int, ints, one, str, sub } from './pbtxt-fields.js';

/** KIND_MODEL lets the model place itself, which for these backends is their own choice, as KIND_AUTO. */
const KINDS: ReadonlyMap<string, InstanceKind> = new Map([
  ['KIND_AUTO', 'auto'],
  ['KIND_MODEL', 'auto'],
  ['KIND_CPU', 'cpu'],
  ['KIND_GPU', 'gpu'],
]);

const READ = new Set(['name', 'count', 'kind', 'gpus']);

export function readInstanceGroups(msg: PbMessage): { groups: InstanceGroupConfig[]; ignored: string[] } {
  const ignored = new Set<string>();
  const groups = (msg.get('instance_group') ?? []).map((v): InstanceGroupConfig => {
    const m = sub(v, 'instance_group');
    for (const k of m.keys()) if (!READ.has(k)) ignored.add(`instance_group.${k}`);
    const count = int(m, 'count', 1);
    if (count < 1) throw new Error(`config.pbtxt: instance_group 'count' must be >= 1 (got ${count})`);
    const given = one(m, 'kind') ?? 'KIND_AUTO';
    const kindName = typeof given === 'string' ? given : JSON.stringify(given);
    const kind = KINDS.get(kindName);
    if (kind === undefined) throw new Error(`config.pbtxt: instance_group 'kind' must be one of ${[...KINDS.keys()].join(', ')} (got ${kindName})`);
    const gpus = ints(m, 'gpus', 0);
    if (gpus.length > 0 && kind !== 'gpu') throw new Error(`config.pbtxt: instance_group 'gpus' applies to KIND_GPU only (this group is ${kindName})`);
    return { name: str(m, 'name'), count, kind, gpus };
  });
  return { groups, ignored: [...ignored] };
}

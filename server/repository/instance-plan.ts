/**
 * Turns config.pbtxt's `instance_group` into the instances to load for each version, as
 * Triton does: each group gives `count` instances, and a KIND_GPU group with `gpus` gives
 * `count` on each listed device. A backend that cannot honour the groups (Backend.instanceGroups)
 * refuses them here, at load, naming the field: a Triton user asking for parallel instances
 * would otherwise get one and a throughput they did not configure. Refusals are InvalidInput,
 * as backend-parameters.ts's.
 */
import { errors } from '../../protocols/errors.js';
import type { Backend, InstanceSpec } from '../backend/backend.js';
import type { InstanceGroupConfig } from '../backend/model-config.js';

const DEFAULT: readonly InstanceGroupConfig[] = [{ name: undefined, count: 1, kind: 'auto', gpus: [] }];

export function instancePlan(backend: Backend, groups: readonly InstanceGroupConfig[] | undefined): InstanceSpec[] {
  const placed: Array<Omit<InstanceSpec, 'index' | 'count'>> = [];
  for (const g of groups === undefined || groups.length === 0 ? DEFAULT : groups) {
    const devices = g.kind === 'gpu' && g.gpus.length > 0 ? g.gpus : [undefined];
    for (const gpu of devices) for (let i = 0; i < g.count; i++) placed.push({ kind: g.kind, gpu });
  }
  const honours = backend.instanceGroups;
  if (placed.length > 1 && honours?.multiple !== true) {
    throw errors.invalidInput(`config.pbtxt: instance_group asks for ${placed.length} instances, but the ${backend.name} backend runs one instance per version; set count: 1`);
  }
  if (placed.some((p) => p.kind === 'gpu') && honours?.gpu !== true) {
    throw errors.invalidInput(`config.pbtxt: instance_group kind KIND_GPU is not supported by the ${backend.name} backend; use KIND_CPU or KIND_AUTO`);
  }
  return placed.map((p, index) => ({ ...p, index, count: placed.length }));
}

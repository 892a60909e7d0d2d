import { describe, expect, it } from 'vitest';
import type { Backend } from '../backend/backend.js';
import type { InstanceGroupConfig } from '../backend/model-config.js';
import { instancePlan } from './instance-plan.js';

const backend = (instanceGroups?: Backend['instanceGroups']): Backend =>
  ({ name: 'b', aliases: [], flags: [], ...(instanceGroups === undefined ? {} : { instanceGroups }) }) as unknown as Backend;
const group = (g: Partial<InstanceGroupConfig>): InstanceGroupConfig => ({ name: undefined, count: 1, kind: 'auto', gpus: [], ...g });
const onnxLike = backend({ multiple: true, gpu: true });

describe('instancePlan', () => {
  it.each<[string, InstanceGroupConfig[] | undefined, Array<[string, number | undefined]>]>([
    ['no instance_group: one KIND_AUTO instance', undefined, [['auto', undefined]]],
    [
      'count: 2 KIND_CPU',
      [group({ count: 2, kind: 'cpu' })],
      [
        ['cpu', undefined],
        ['cpu', undefined],
      ],
    ],
    [
      'KIND_GPU without gpus: count on the configured device',
      [group({ count: 2, kind: 'gpu' })],
      [
        ['gpu', undefined],
        ['gpu', undefined],
      ],
    ],
    [
      'KIND_GPU with gpus: count on each device, as Triton',
      [group({ count: 2, kind: 'gpu', gpus: [0, 3] })],
      [
        ['gpu', 0],
        ['gpu', 0],
        ['gpu', 3],
        ['gpu', 3],
      ],
    ],
    [
      'several groups, in order',
      [group({ kind: 'gpu', gpus: [1] }), group({ count: 2, kind: 'cpu' })],
      [
        ['gpu', 1],
        ['cpu', undefined],
        ['cpu', undefined],
      ],
    ],
  ])('%s', (_what, groups, expected) => {
    const plan = instancePlan(onnxLike, groups);
    expect(plan.map((p) => [p.kind, p.gpu])).toEqual(expected);
    expect(plan.map((p) => p.index)).toEqual(expected.map((_, i) => i));
    expect(plan.every((p) => p.count === expected.length)).toBe(true);
  });

  it('refuses more than one instance, naming the field, for a backend that runs one', () => {
    expect(() => instancePlan(backend(), [group({ count: 2 })])).toThrow(
      'config.pbtxt: instance_group asks for 2 instances, but the b backend runs one instance per version; set count: 1',
    );
    expect(() => instancePlan(backend({ multiple: false, gpu: true }), [group({}), group({ kind: 'cpu' })])).toThrow(/instance_group asks for 2 instances/);
  });

  it('refuses KIND_GPU for a backend that cannot place an instance on a GPU, and takes one KIND_CPU instance', () => {
    expect(() => instancePlan(backend(), [group({ kind: 'gpu' })])).toThrow(
      'config.pbtxt: instance_group kind KIND_GPU is not supported by the b backend; use KIND_CPU or KIND_AUTO',
    );
    expect(instancePlan(backend(), [group({ kind: 'cpu' })])).toEqual([{ index: 0, count: 1, kind: 'cpu', gpu: undefined }]);
  });
});

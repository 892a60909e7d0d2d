import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { Backend, InstanceSpec, LoadSpec, ModelInstance } from '../backend/backend.js';
import type { InstanceGroupConfig, ModelConfig, WarmupSample } from '../backend/model-config.js';
import { InstancePool } from '../instances/instance-pool.js';
import { loadVersionInstances } from './version-instances.js';

const logger = pino({ level: 'silent' });

/** A backend that records each load and fails the instance numbers in `failing`. */
function recordingBackend(failing: number[] = []) {
  const loads: Array<{ instance: InstanceSpec | undefined; threads: number }> = [];
  const unloaded: number[] = [];
  /** Inference calls per instance, with their input shapes. */
  const runs: Array<[number, number[]]> = [];
  const backend = {
    name: 'rec',
    aliases: [],
    flags: [],
    instanceGroups: { multiple: true, gpu: true },
    load: async (spec: LoadSpec, _options: unknown, context: { threads: number }): Promise<ModelInstance> => {
      const index = spec.instance?.index ?? 0;
      loads.push({ instance: spec.instance, threads: context.threads });
      if (failing.includes(index)) throw new Error(`instance ${index} failed to load`);
      return {
        platform: 'rec',
        inputs: [{ name: 'x', datatype: 'FP32', shape: [-1, 2] }],
        outputs: [{ name: 'y', datatype: 'FP32', shape: [-1, 2] }],
        infer: async (inputs) => {
          runs.push([index, [...(inputs[0]?.shape ?? [])]]);
          if (failing.includes(-1 - index)) throw new Error(`instance ${index} cannot run`);
          return [];
        },
        unload: async () => {
          unloaded.push(index);
        },
        onFailure: () => undefined,
      };
    },
  } as unknown as Backend;
  return { backend, loads, unloaded, runs };
}

const spec = (groups: InstanceGroupConfig[], warmup: WarmupSample[] = []): LoadSpec => ({
  modelName: 'm',
  version: '1',
  dir: '/nowhere',
  file: '/nowhere/model.onnx',
  config: { instanceGroups: groups, warmup, maxBatchSize: 4 } as unknown as ModelConfig,
});
const zeros: WarmupSample = { name: 'z', batchSize: 3, count: 2, inputs: [{ name: 'x', datatype: 'FP32', dims: [2], data: { kind: 'zero' } }] };
const three: InstanceGroupConfig[] = [{ name: undefined, count: 3, kind: 'cpu', gpus: [] }];

describe('loadVersionInstances', () => {
  it('serves one instance as it is, with the whole thread budget', async () => {
    const { backend, loads } = recordingBackend();
    const { instance, count } = await loadVersionInstances(backend, spec([]), {}, { threads: 4, logger });
    expect(count).toBe(1);
    expect(instance).not.toBeInstanceOf(InstancePool);
    expect(loads).toEqual([{ instance: { index: 0, count: 1, kind: 'auto', gpu: undefined }, threads: 4 }]);
  });

  it('loads each instance of the group with the thread budget divided among them, behind one pool', async () => {
    const { backend, loads } = recordingBackend();
    const { instance, count } = await loadVersionInstances(backend, spec([{ name: undefined, count: 3, kind: 'cpu', gpus: [] }]), {}, { threads: 7, logger });
    expect(count).toBe(3);
    expect(instance).toBeInstanceOf(InstancePool);
    expect(loads.map((l) => [l.instance?.index, l.threads])).toEqual([
      [0, 2],
      [1, 2],
      [2, 2],
    ]);
  });

  it("fails with the failing instance's error and unloads the instances that loaded", async () => {
    const { backend, unloaded } = recordingBackend([1]);
    await expect(loadVersionInstances(backend, spec([{ name: undefined, count: 3, kind: 'cpu', gpus: [] }]), {}, { threads: 1, logger })).rejects.toThrow(
      'instance 1 failed to load',
    );
    expect(unloaded.sort()).toEqual([0, 2]);
  });

  it('runs each warm-up sample count times on every instance before handing the version out', async () => {
    const { backend, runs } = recordingBackend();
    await loadVersionInstances(backend, spec(three, [zeros]), {}, { threads: 1, logger });
    expect(runs.map(([i]) => i).sort()).toEqual([0, 0, 1, 1, 2, 2]);
    expect(runs.every(([, shape]) => shape.join() === '3,2')).toBe(true);
  });

  it('fails with the sample and the reason when one instance fails its warm-up, unloading every instance', async () => {
    const { backend, unloaded } = recordingBackend([-2]);
    await expect(loadVersionInstances(backend, spec(three, [zeros]), {}, { threads: 1, logger })).rejects.toThrow("model_warmup 'z' failed: instance 1 cannot run");
    expect(unloaded.sort()).toEqual([0, 1, 2]);
  });
});

import { describe, expect, it } from 'vitest';
import type { InstanceSpec } from '../../backend/backend.js';
import { placeInstance } from './instance-placement.js';
import type { OnnxOptions } from './onnx-options.js';

const options = (executionProviders: string[], cuda: Record<string, string> = {}): OnnxOptions => ({
  executionProviders,
  intraOpThreads: undefined,
  interOpThreads: 1,
  inlineMaxMicros: 100,
  cuda,
});
const instance = (kind: InstanceSpec['kind'], count = 1, gpu?: number): InstanceSpec => ({ index: 0, count, kind, gpu });

describe('placeInstance', () => {
  it.each<[string, string[], InstanceSpec | undefined, string[], string | undefined]>([
    ['no group: as configured', ['cuda', 'cpu'], undefined, ['cuda', 'cpu'], undefined],
    ['KIND_AUTO: as configured', ['cuda', 'cpu'], instance('auto'), ['cuda', 'cpu'], undefined],
    ['KIND_CPU: the cpu only, whatever the list', ['cuda', 'cpu'], instance('cpu'), ['cpu'], undefined],
    ['KIND_GPU on the default list: cuda before cpu, so the fallback rules apply', ['cpu'], instance('gpu'), ['cuda', 'cpu'], undefined],
    ['KIND_GPU on a list naming cuda: that list', ['cuda'], instance('gpu'), ['cuda'], undefined],
    ['KIND_GPU with gpus: [2]: the CUDA device_id', ['cuda', 'cpu'], instance('gpu', 1, 2), ['cuda', 'cpu'], '2'],
  ])('%s', (_what, listed, spec, providers, deviceId) => {
    const placed = placeInstance(options(listed), spec);
    expect(placed.executionProviders).toEqual(providers);
    expect(placed.cuda['device_id']).toBe(deviceId);
  });

  it('keeps the inline session for a single instance only', () => {
    expect(placeInstance(options(['cpu']), instance('cpu', 1)).inlineMaxMicros).toBe(100);
    expect(placeInstance(options(['cpu']), instance('auto', 2)).inlineMaxMicros).toBe(0);
    expect(placeInstance(options(['cpu']), instance('gpu', 2, 0)).inlineMaxMicros).toBe(0);
  });
});

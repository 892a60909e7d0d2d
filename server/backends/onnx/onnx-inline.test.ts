/** Inline execution of tiny models: who qualifies, and that inline and worker paths give the same numbers. */
import path from 'node:path';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { toKServeError } from '../../../protocols/errors.js';
import { fixture } from '../../../test/helpers/server.js';
import type { ModelInstance } from '../../backend/backend.js';
import { onnxBackend } from './onnx-backend.js';
import { INLINE_SIZE_FACTOR } from './onnx-inline.js';
import type { OnnxInstance } from './onnx-instance.js';
import type { OnnxOptions } from './onnx-options.js';

const options = (inlineMaxMicros: number): OnnxOptions => ({ executionProviders: ['cpu'], intraOpThreads: 1, interOpThreads: 1, inlineMaxMicros, cuda: {} });
/** A budget no run exceeds, however slow or loaded the machine: the model qualifies on its kind alone. */
const ANY_TIME = Number.MAX_SAFE_INTEGER;
const context = { threads: 1, logger: pino({ level: 'silent' }) };

async function load(name: string, inlineMaxMicros: number): Promise<ModelInstance & Pick<OnnxInstance, 'inline'>> {
  const file = fixture(name);
  const m = await onnxBackend.load({ modelName: name, version: undefined, dir: path.dirname(file), file, config: undefined }, options(inlineMaxMicros), context);
  await (m as OnnxInstance).inlineSettled();
  return m as ModelInstance & Pick<OnnxInstance, 'inline'>;
}

/** add_sub: OUTPUT0 = a + b, OUTPUT1 = a − b over [-1, 16]. */
function addSubInputs(batch: number, seed: number) {
  const a = Float32Array.from({ length: 16 * batch }, (_, i) => i * 0.5 + seed);
  const b = Float32Array.from({ length: 16 * batch }, (_, i) => (i % 7) - seed);
  return {
    inputs: [
      { name: 'INPUT0', datatype: 'FP32' as const, shape: [batch, 16], data: a },
      { name: 'INPUT1', datatype: 'FP32' as const, shape: [batch, 16], data: b },
    ],
    sum: Array.from(a, (x, i) => Math.fround(x + (b[i] as number))),
  };
}

describe('onnx inline execution', () => {
  it('a tiny model runs small requests inline and large ones in its worker, with the same numbers', async () => {
    const m = await load('add_sub', ANY_TIME);
    try {
      expect(m.inline).toBe(true);
      for (const batch of [1, 4, INLINE_SIZE_FACTOR / 2, INLINE_SIZE_FACTOR * 4]) {
        const { inputs, sum } = addSubInputs(batch, batch);
        const [out] = await m.infer(inputs, ['OUTPUT0']);
        expect(out?.shape).toEqual([batch, 16]);
        expect(Array.from(out?.data as Float32Array)).toEqual(sum);
      }
    } finally {
      await m.unload();
    }
  });

  it('concurrent inline and worker requests each get exactly their own rows', async () => {
    const m = await load('add_sub', ANY_TIME);
    try {
      const cases = Array.from({ length: 40 }, (_, i) => addSubInputs(i % 3 === 0 ? INLINE_SIZE_FACTOR * 3 : 1 + (i % 4), i));
      const outs = await Promise.all(cases.map((c) => m.infer(c.inputs, ['OUTPUT0'])));
      outs.forEach((o, i) => expect(Array.from(o[0]?.data as Float32Array)).toEqual(cases[i]?.sum));
    } finally {
      await m.unload();
    }
  });

  it('inline inputs may be views into a larger buffer (binary requests)', async () => {
    const m = await load('add_sub', ANY_TIME);
    try {
      const backing = new Float32Array(64);
      backing.set(
        Float32Array.from({ length: 16 }, (_, i) => i),
        16,
      );
      const a = backing.subarray(16, 32);
      const b = new Float32Array(16).fill(2);
      const [out] = await m.infer(
        [
          { name: 'INPUT0', datatype: 'FP32', shape: [1, 16], data: a },
          { name: 'INPUT1', datatype: 'FP32', shape: [1, 16], data: b },
        ],
        ['OUTPUT1'],
      );
      expect(Array.from(out?.data as Float32Array)).toEqual(Array.from({ length: 16 }, (_, i) => i - 2));
    } finally {
      await m.unload();
    }
  });

  it('a request onnxruntime fails reads the same inline and in the worker: one kind, status and message', async () => {
    // add_free_dims: [2,16] + [3,16] pass every check before the graph (the dims are named
    // differently), so onnxruntime itself fails the run.
    const rows = (n: number) => ({ shape: [n, 16], data: new Float32Array(16 * n).fill(1) });
    // Fresh buffers for each call: the worker path takes (transfers) the request's own.
    const inputs = () => [
      { name: 'INPUT0', datatype: 'FP32' as const, ...rows(2) },
      { name: 'INPUT1', datatype: 'FP32' as const, ...rows(3) },
    ];
    /** The failure as a transport answers it (toKServeError is what REST and gRPC apply). */
    const failure = async (m: ModelInstance) => {
      const err = toKServeError(
        await m.infer(inputs(), ['OUTPUT0']).then(
          () => new Error('the inference did not fail'),
          (e: unknown) => e,
        ),
      );
      return { kind: err.kind, httpStatus: err.httpStatus, grpcCode: err.grpcCode, message: err.message };
    };
    const inline = await load('add_free_dims', ANY_TIME);
    const worker = await load('add_free_dims', 0);
    try {
      expect(inline.inline).toBe(true);
      expect(worker.inline).toBe(false);
      const fromWorker = await failure(worker);
      expect(fromWorker).toMatchObject({
        kind: 'InferenceError',
        httpStatus: 500,
        message: expect.stringContaining('Attempting to broadcast an axis by a dimension other than 1'),
      });
      expect(await failure(inline)).toEqual(fromWorker);
    } finally {
      await inline.unload();
      await worker.unload();
    }
  });

  it('stays in the worker when disabled, when the model is too slow for the budget, or with string inputs', async () => {
    for (const [name, budget] of [
      ['add_sub', 0],
      // No run takes a nanosecond.
      ['add_sub', 0.001],
      ['identity_bytes', ANY_TIME],
    ] as const) {
      const m = await load(name, budget);
      try {
        expect(m.inline, `${name} with ${budget} µs`).toBe(false);
      } finally {
        await m.unload();
      }
    }
  });
});

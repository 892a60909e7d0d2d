import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { WarmupInput, WarmupSample } from '../backend/model-config.js';
import { readSampleFiles, sampleTensors } from './warmup-data.js';

const sample = (inputs: WarmupInput[], batchSize = 1): WarmupSample => ({ name: 's', batchSize, inputs, count: 1 });
const root = mkdtempSync(path.join(tmpdir(), 'kserve-ts-warmup-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A model folder with version 1; `files` go to the version's or the model's warmup/. */
function folders(files: { version?: Record<string, Buffer>; model?: Record<string, Buffer> }): string[] {
  const model = mkdtempSync(path.join(root, 'm-'));
  const version = path.join(model, '1');
  for (const [where, set] of [
    [version, files.version],
    [model, files.model],
  ] as const) {
    mkdirSync(path.join(where, 'warmup'), { recursive: true });
    for (const [name, bytes] of Object.entries(set ?? {})) writeFileSync(path.join(where, 'warmup', name), bytes);
  }
  return [version, model];
}

describe('sampleTensors', () => {
  it('zero_data: zeros of the dims, with the batch dimension in front for a batching model', () => {
    const s = sample([{ name: 'x', datatype: 'INT64', dims: [2, 3], data: { kind: 'zero' } }], 2);
    const [t] = sampleTensors(s, 4, new Map());
    expect(t?.shape).toEqual([2, 2, 3]);
    expect(t?.data).toEqual(new BigInt64Array(12));
    expect(sampleTensors(sample([{ name: 'x', datatype: 'FP32', dims: [3], data: { kind: 'zero' } }]), 0, new Map())[0]?.shape).toEqual([3]);
  });

  it('random_data: values of the datatype in [0, 1) for floats and [0, 128) for integers, fresh on every call', () => {
    const s = sample([
      { name: 'f', datatype: 'FP32', dims: [64], data: { kind: 'random' } },
      { name: 'i', datatype: 'INT32', dims: [64], data: { kind: 'random' } },
      { name: 'b', datatype: 'BOOL', dims: [64], data: { kind: 'random' } },
    ]);
    const [f, i, b] = sampleTensors(s, 0, new Map());
    expect(f?.data).toBeInstanceOf(Float32Array);
    expect(Array.from(f?.data as Float32Array).every((v) => v >= 0 && v < 1)).toBe(true);
    expect(Array.from(i?.data as Int32Array).every((v) => Number.isInteger(v) && v >= 0 && v < 128)).toBe(true);
    expect(Array.from(b?.data as Uint8Array).every((v) => v === 0 || v === 1)).toBe(true);
    expect(sampleTensors(s, 0, new Map())[0]?.data).not.toBe(f?.data);
  });

  it('random_data for TYPE_STRING is empty strings, as in Triton', () => {
    const [t] = sampleTensors(sample([{ name: 's', datatype: 'BYTES', dims: [2], data: { kind: 'random' } }]), 0, new Map());
    expect(t?.data).toEqual([new Uint8Array(0), new Uint8Array(0)]);
  });

  it('input_data_file: its row-major bytes, repeated for every row of the batch; strings length-prefixed', async () => {
    const floats = Buffer.from(Float32Array.from([1.5, -2, 3]).buffer);
    const strings = Buffer.concat([Buffer.from([2, 0, 0, 0]), Buffer.from('hi'), Buffer.from([0, 0, 0, 0])]);
    const s = sample(
      [
        { name: 'x', datatype: 'FP32', dims: [3], data: { kind: 'file', file: 'x.bin' } },
        { name: 's', datatype: 'BYTES', dims: [2], data: { kind: 'file', file: 's.bin' } },
      ],
      2,
    );
    const files = await readSampleFiles(s, folders({ version: { 'x.bin': floats }, model: { 's.bin': strings } }));
    const [x, str] = sampleTensors(s, 8, files);
    expect(x?.shape).toEqual([2, 3]);
    expect(Array.from(x?.data as Float32Array)).toEqual([1.5, -2, 3, 1.5, -2, 3]);
    expect(str?.data).toEqual([Uint8Array.from(Buffer.from('hi')), new Uint8Array(0), Uint8Array.from(Buffer.from('hi')), new Uint8Array(0)]);
  });

  it("reads the version's warmup/ before the model's", async () => {
    const s = sample([{ name: 'x', datatype: 'UINT8', dims: [1], data: { kind: 'file', file: 'x.bin' } }]);
    const files = await readSampleFiles(s, folders({ version: { 'x.bin': Buffer.from([7]) }, model: { 'x.bin': Buffer.from([9]) } }));
    expect(Array.from(sampleTensors(s, 0, files)[0]?.data as Uint8Array)).toEqual([7]);
  });

  it.each<[string, WarmupSample, number, RegExp]>([
    [
      'batch_size > 1 without batching',
      sample([{ name: 'x', datatype: 'FP32', dims: [1], data: { kind: 'zero' } }], 2),
      0,
      /batch_size 2 needs a model that batches \(max_batch_size > 0\)/,
    ],
    ['batch_size above max_batch_size', sample([{ name: 'x', datatype: 'FP32', dims: [1], data: { kind: 'zero' } }], 9), 8, /batch_size 9 exceeds max_batch_size 8/],
  ])('refuses %s', (_what, s, max, message) => {
    expect(() => sampleTensors(s, max, new Map())).toThrow(message);
  });

  it('refuses a missing file, a short one and cut strings, naming the input', async () => {
    const dirs = folders({ version: { 'short.bin': Buffer.alloc(8), 'cut.bin': Buffer.from([5, 0, 0, 0, 97]) } });
    const missing = sample([{ name: 'x', datatype: 'FP32', dims: [3], data: { kind: 'file', file: 'nope.bin' } }]);
    await expect(readSampleFiles(missing, dirs)).rejects.toThrow(/input 'x': input_data_file 'nope\.bin' is not in .*\/1\/warmup or .*\/warmup$/);
    const short = sample([{ name: 'x', datatype: 'FP32', dims: [3], data: { kind: 'file', file: 'short.bin' } }]);
    expect(() => sampleTensors(short, 0, readSync(short, dirs))).toThrow("input 'x': input_data_file holds 8 bytes, the dims need 12");
    const cut = sample([{ name: 's', datatype: 'BYTES', dims: [1], data: { kind: 'file', file: 'cut.bin' } }]);
    expect(() => sampleTensors(cut, 0, readSync(cut, dirs))).toThrow("input 's': input_data_file string 0 is cut short");
  });
});

/** The files of a sample, read from the version's warmup/ (what readSampleFiles finds there). */
function readSync(s: WarmupSample, dirs: string[]): Map<string, Buffer> {
  return new Map(s.inputs.flatMap((i) => (i.data.kind === 'file' ? [[i.name, readFileSync(path.join(dirs[0] as string, 'warmup', i.data.file))] as [string, Buffer]] : [])));
}

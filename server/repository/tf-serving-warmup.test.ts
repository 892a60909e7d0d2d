import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { Tensor } from '../../protocols/tensor.js';
import type { Backend, LoadSpec, ModelInstance } from '../backend/backend.js';
import type { ModelConfig } from '../backend/model-config.js';
import { otherLog, predictLog, shape, tfRecords, writeWarmupFile } from './tf-serving-warmup.test-helper.js';
import { loadVersionInstances } from './version-instances.js';

const logger = pino({ level: 'silent' });
const DT = { FLOAT: 1, INT32: 3, STRING: 7, COMPLEX64: 8, INT64: 9, BOOL: 10, HALF: 19 } as const;

/** A backend honouring the warm-up file (or not), whose instances record every call. */
function recordingBackend(tfServingWarmup: boolean) {
  const calls: Array<{ instance: number; inputs: Tensor[]; outputs: readonly string[]; signature: string | undefined }> = [];
  const unloaded: number[] = [];
  const backend = {
    name: 'rec',
    aliases: [],
    flags: [],
    instanceGroups: { multiple: true, gpu: false },
    tfServingWarmup,
    load: async (spec: LoadSpec): Promise<ModelInstance> => {
      const index = spec.instance?.index ?? 0;
      const sig = (name: string) => ({
        name,
        inputs: [
          { name: 'x', datatype: 'FP32', shape: [-1, 2] },
          { name: 'n', datatype: 'INT64', shape: [-1] },
        ],
        outputs: [
          { name: 'y', datatype: 'FP32', shape: [-1] },
          { name: 'z', datatype: 'FP32', shape: [-1] },
        ],
      });
      const signatures = [sig('serving_default'), sig('other')];
      return {
        platform: 'rec',
        inputs: signatures[0]!.inputs,
        outputs: signatures[0]!.outputs,
        signatures,
        infer: async (inputs, outputs, signature) => {
          calls.push({ instance: index, inputs: [...inputs], outputs, signature });
          return [];
        },
        unload: async () => {
          unloaded.push(index);
        },
        onFailure: () => undefined,
      } as ModelInstance;
    },
  } as unknown as Backend;
  return { backend, calls, unloaded };
}

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A version folder holding `file` as its warm-up records; the spec loads it with two instances. */
function version(file: Buffer): LoadSpec {
  const model = mkdtempSync(path.join(tmpdir(), 'kserve-ts-tfwarm-'));
  dirs.push(model);
  const dir = path.join(model, '3');
  writeWarmupFile(dir, file);
  const config = { instanceGroups: [{ name: undefined, count: 2, kind: 'cpu', gpus: [] }], warmup: [], maxBatchSize: 0 } as unknown as ModelConfig;
  return { modelName: 'm', version: '3', dir, file: path.join(dir, 'saved_model.pb'), config };
}

const good = predictLog({
  x: { dtype: DT.FLOAT, tensor_shape: shape(1, 2), tensor_content: Buffer.from(new Float32Array([1.5, -2]).buffer) },
  n: { dtype: DT.INT64, tensor_shape: shape(3), int64_val: [7, '-9007199254740993'] },
});
const broadcast = predictLog(
  { x: { dtype: DT.FLOAT, tensor_shape: shape(2, 2), float_val: [0.25] }, n: { dtype: DT.INT64, tensor_shape: shape(1) } },
  { signature_name: 'other', output_filter: ['z'] },
);

const load = (backend: Backend, spec: LoadSpec) => loadVersionInstances(backend, spec, {}, { threads: 2, logger });

describe('TF Serving warm-up records (assets.extra/tf_serving_warmup_requests)', () => {
  it('runs every predict record on every instance, with the tensors the records hold', async () => {
    const { backend, calls } = recordingBackend(true);
    await load(backend, version(tfRecords([good, broadcast])));
    expect(calls.map((c) => c.instance).sort()).toEqual([0, 0, 1, 1]);
    const [first, second] = calls.filter((c) => c.instance === 0);
    expect(first?.signature).toBe('serving_default');
    expect(first?.outputs).toEqual(['y', 'z']);
    const [x, n] = first!.inputs;
    expect([x?.name, x?.datatype, x?.shape, Array.from(x?.data as Float32Array)]).toEqual(['x', 'FP32', [1, 2], [1.5, -2]]);
    // Fewer values than elements repeat the last, as TensorFlow's FromProto does.
    expect([n?.datatype, n?.shape, Array.from(n?.data as BigInt64Array)]).toEqual(['INT64', [3], [7n, -9007199254740993n, -9007199254740993n]]);
    expect(second?.signature).toBe('other');
    expect(second?.outputs).toEqual(['z']);
    expect(Array.from(second!.inputs[0]!.data as Float32Array)).toEqual([0.25, 0.25, 0.25, 0.25]);
    expect(Array.from(second!.inputs[1]!.data as BigInt64Array)).toEqual([0n]);
    // Each instance got its own buffers (an instance may detach them).
    const other = calls.find((c) => c.instance === 1)!;
    expect(other.inputs[0]!.data).not.toBe(first!.inputs[0]!.data);
  });

  it.each([
    ['a damaged data CRC', (f: Buffer) => f.writeUInt8(f.readUInt8(f.length - 1) ^ 1, f.length - 1), /record 1: the CRC of its data does not match/],
    ['a damaged length CRC', (f: Buffer) => f.writeUInt8(f.readUInt8(8) ^ 1, 8), /record 0: the CRC of its length does not match/],
    ['a flipped data byte', (f: Buffer) => f.writeUInt8(f.readUInt8(14) ^ 0x40, 14), /record 0: the CRC of its data does not match/],
  ])('fails the load on %s, naming the record', async (_what, damage, reason) => {
    const file = tfRecords([good, good]);
    damage(file);
    const { backend, calls } = recordingBackend(true);
    await expect(load(backend, version(file))).rejects.toThrow(reason);
    expect(calls).toEqual([]);
  });

  it.each([
    ['in the header', 5, /record 1 is truncated: 5 bytes left, its header needs 12/],
    ['in the data', 20, /record 1 is truncated: it declares \d+ bytes, \d+ are left/],
  ])('fails the load on a file truncated %s', async (_where, keep, reason) => {
    const one = tfRecords([good]);
    const file = tfRecords([good, good]).subarray(0, one.length + keep);
    const { backend, unloaded } = recordingBackend(true);
    await expect(load(backend, version(file))).rejects.toThrow(reason);
    expect(unloaded.sort()).toEqual([0, 1]);
  });

  it("runs up to TF Serving's 1000 records and fails a file with more, before running any", async () => {
    const tiny = predictLog({ x: { dtype: DT.FLOAT, tensor_shape: shape(1, 2) }, n: { dtype: DT.INT64, tensor_shape: shape(1) } });
    const ok = recordingBackend(true);
    await load(ok.backend, version(tfRecords(Array.from({ length: 1000 }, () => tiny))));
    expect(ok.calls.length).toBe(2000);
    const over = recordingBackend(true);
    await expect(load(over.backend, version(tfRecords(Array.from({ length: 1001 }, () => tiny))))).rejects.toThrow(
      "tf_serving_warmup_requests: more than 1000 records; TF Serving's limit is 1000",
    );
    expect(over.calls).toEqual([]);
  });

  it.each(['classify_log', 'regress_log', 'multi_inference_log', 'session_run_log'] as const)('refuses a %s record, naming it', async (type) => {
    const { backend, calls } = recordingBackend(true);
    await expect(load(backend, version(tfRecords([good, otherLog(type)])))).rejects.toThrow(
      `warm-up record 1 of assets.extra/tf_serving_warmup_requests is a ${type}; only predict_log warm-up records are supported`,
    );
    expect(calls).toEqual([]);
  });

  it.each([
    ['a record that is not protobuf', Buffer.from([0xff, 0xff]), /record 0 of .* is not a PredictionLog: /],
    ['an unsupported dtype', predictLog({ x: { dtype: DT.COMPLEX64, tensor_shape: shape(1) } }), /tensor 'x': dtype 8 is not supported/],
    [
      'more values than elements',
      predictLog({ x: { dtype: DT.FLOAT, tensor_shape: shape(1), float_val: [1, 2] } }),
      /tensor 'x': float_val holds 2 values, the shape has 1 elements/,
    ],
    [
      'tensor_content of the wrong size',
      predictLog({ x: { dtype: DT.FLOAT, tensor_shape: shape(2), tensor_content: Buffer.alloc(4) } }),
      /tensor_content holds 4 bytes, the shape needs 8/,
    ],
    ['an unknown dimension', predictLog({ x: { dtype: DT.FLOAT, tensor_shape: shape(-1) } }), /tensor 'x': dimension is negative/],
  ])('fails the load on %s', async (_what, record, reason) => {
    const { backend } = recordingBackend(true);
    await expect(load(backend, version(tfRecords([record])))).rejects.toThrow(reason);
  });

  it('fails the load when the model refuses a record, with the record and the reason', async () => {
    const wrong = predictLog({ x: { dtype: DT.INT32, tensor_shape: shape(1, 2), int_val: [1] }, n: { dtype: DT.INT64, tensor_shape: shape(1) } });
    const { backend } = recordingBackend(true);
    await expect(load(backend, version(tfRecords([good, wrong])))).rejects.toThrow(
      "warm-up record 1 of assets.extra/tf_serving_warmup_requests failed: input 'x': datatype INT32 does not match the model's FP32",
    );
    const filtered = predictLog({ x: { dtype: DT.FLOAT, tensor_shape: shape(1, 2) }, n: { dtype: DT.INT64, tensor_shape: shape(1) } }, { output_filter: ['w'] });
    await expect(load(backend, version(tfRecords([filtered])))).rejects.toThrow(
      "record 0 of assets.extra/tf_serving_warmup_requests failed: output 'w' is not an output of the model; outputs: y, z",
    );
    const named = predictLog({ x: { dtype: DT.FLOAT, tensor_shape: shape(1, 2) } }, { signature_name: 'nope' });
    await expect(load(backend, version(tfRecords([named])))).rejects.toThrow(/record 0 .* failed: Serving signature name: "nope" not found/);
  });

  it('decodes strings, halves, booleans and packed int_val', async () => {
    const { backend, calls } = recordingBackend(true);
    // The recording model takes x and n only; this backend checks nothing beyond them.
    (backend as { load: Backend['load'] }).load = (
      (orig) =>
      async (...a: Parameters<Backend['load']>) => ({ ...(await orig(...a)), validatesOwnInputs: true })
    )(backend.load.bind(backend));
    const record = predictLog({
      s: { dtype: DT.STRING, tensor_shape: shape(2), string_val: [Buffer.from('ab'), Buffer.from([0xff])] },
      h: { dtype: DT.HALF, tensor_shape: shape(2), half_val: [0x3c00, 0xc000] },
      b: { dtype: DT.BOOL, tensor_shape: shape(3), bool_val: [true, false, true] },
      i: { dtype: DT.INT32, tensor_shape: shape(), int_val: [-5] },
    });
    await load(backend, version(tfRecords([record])));
    const byName = new Map(calls[0]!.inputs.map((t) => [t.name, t]));
    expect((byName.get('s')?.data as Uint8Array[]).map((b) => Array.from(b))).toEqual([[0x61, 0x62], [0xff]]);
    expect([byName.get('h')?.datatype, Array.from(byName.get('h')?.data as Uint16Array)]).toEqual(['FP16', [0x3c00, 0xc000]]);
    expect([byName.get('b')?.datatype, Array.from(byName.get('b')?.data as Uint8Array)]).toEqual(['BOOL', [1, 0, 1]]);
    expect([byName.get('i')?.shape, Array.from(byName.get('i')?.data as Int32Array)]).toEqual([[], [-5]]);
  });

  it('is ignored by a backend that does not honour it (onnx), even when broken', async () => {
    const { backend, calls } = recordingBackend(false);
    await load(backend, version(Buffer.from('not a tfrecord file')));
    expect(calls).toEqual([]);
  });
});

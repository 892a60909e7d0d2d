/** The onnx backend against real onnxruntime sessions: detection, metadata, providers, failures. */
import { mkdtempSync, copyFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { fixture } from '../../../test/helpers/server.js';
import type { LoadContext } from '../../backend/backend.js';
import { listFiles } from '../../backend/backend-registry.js';
import { onnxBackend } from './onnx-backend.js';
import type { OnnxOptions } from './onnx-options.js';

function capturingLogger(): { options: OnnxOptions; context: LoadContext; lines: () => Array<Record<string, unknown>> } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      chunks.push(chunk.toString());
      cb();
    },
  });
  const logger = pino({ level: 'debug' }, stream);
  return {
    options: { executionProviders: ['cpu'], intraOpThreads: 1, interOpThreads: 1, inlineMaxMicros: 0, cuda: {} },
    context: { threads: 1, logger },
    lines: () =>
      chunks
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

describe('onnx backend', () => {
  const dirs: string[] = [];
  const tempDir = (files: Record<string, string>) => {
    const d = mkdtempSync(path.join(tmpdir(), 'kserve-ts-onnx-'));
    dirs.push(d);
    for (const [name, src] of Object.entries(files)) copyFileSync(src, path.join(d, name));
    return d;
  };
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('detects model.onnx, a single *.onnx file, and refuses to guess between several', async () => {
    const detect = async (dir: string) => onnxBackend.detect(dir, await listFiles(dir));
    expect(await detect(tempDir({ 'model.onnx': fixture('add_sub') }))).toMatch(/model\.onnx$/);
    expect(await detect(tempDir({ 'classifier.onnx': fixture('add_sub') }))).toMatch(/classifier\.onnx$/);
    expect(await detect(tempDir({}))).toBeUndefined();
    await expect(detect(tempDir({ 'a.onnx': fixture('add_sub'), 'b.onnx': fixture('add_sub') }))).rejects.toThrow(/several \.onnx files \(a\.onnx, b\.onnx\)/);
  });

  it('exposes V2 metadata from the session, with -1 for dynamic dimensions', async () => {
    const { options, context } = capturingLogger();
    const file = fixture('add_sub');
    const m = await onnxBackend.load({ modelName: 'm', version: undefined, dir: path.dirname(file), file, config: undefined }, options, context);
    try {
      expect(m.platform).toBe('onnxruntime_onnx');
      expect(m.inputs).toEqual([
        { name: 'INPUT0', datatype: 'FP32', shape: [-1, 16] },
        { name: 'INPUT1', datatype: 'FP32', shape: [-1, 16] },
      ]);
      expect(m.outputs.map((o) => o.name)).toEqual(['OUTPUT0', 'OUTPUT1']);
      const a = Float32Array.from({ length: 16 }, (_, i) => i);
      const b = new Float32Array(16).fill(1);
      const out = await m.infer(
        [
          { name: 'INPUT0', datatype: 'FP32', shape: [1, 16], data: a },
          { name: 'INPUT1', datatype: 'FP32', shape: [1, 16], data: b },
        ],
        ['OUTPUT1'],
      );
      expect(out.map((o) => o.name)).toEqual(['OUTPUT1']);
      expect(Array.from(out[0]?.data as Float32Array)).toEqual(Array.from({ length: 16 }, (_, i) => i - 1));
    } finally {
      await m.unload();
    }
  });

  it('gives each of many concurrent requests exactly its own result', async () => {
    const { options, context } = capturingLogger();
    const file = fixture('scale2_fp32');
    const m = await onnxBackend.load({ modelName: 'm', version: undefined, dir: path.dirname(file), file, config: undefined }, options, context);
    try {
      const calls = Array.from({ length: 64 }, (_, i) => m.infer([{ name: 'INPUT0', datatype: 'FP32', shape: [1, 3], data: Float32Array.of(i, i + 0.5, -i) }], ['OUTPUT0']));
      const results = await Promise.all(calls);
      results.forEach((out, i) => expect(Array.from(out[0]?.data as Float32Array)).toEqual([2 * i, 2 * i + 1, -2 * i]));
    } finally {
      await m.unload();
    }
  });

  it('survives the same output requested twice and refuses non-UTF-8 strings', async () => {
    const { options, context } = capturingLogger();
    const file = fixture('identity_bytes');
    const m = await onnxBackend.load({ modelName: 'm', version: undefined, dir: path.dirname(file), file, config: undefined }, options, context);
    const f32 = fixture('identity_fp32');
    const n = await onnxBackend.load({ modelName: 'n', version: undefined, dir: path.dirname(f32), file: f32, config: undefined }, options, context);
    try {
      const twice = await n.infer([{ name: 'INPUT0', datatype: 'FP32', shape: [1, 2], data: Float32Array.of(3, 4) }], ['OUTPUT0', 'OUTPUT0']);
      expect(twice.map((o) => Array.from(o.data as Float32Array))).toEqual([
        [3, 4],
        [3, 4],
      ]);
      const bad = m.infer([{ name: 'INPUT0', datatype: 'BYTES', shape: [1, 1], data: [Uint8Array.of(0xff, 0xfe)] }], ['OUTPUT0']);
      await expect(bad).rejects.toMatchObject({ kind: 'InvalidInput' });
      await expect(bad).rejects.toThrow(/element 0 is not valid UTF-8/);
      const good = await m.infer([{ name: 'INPUT0', datatype: 'BYTES', shape: [1, 1], data: [new TextEncoder().encode('héllo')] }], ['OUTPUT0']);
      expect(new TextDecoder().decode((good[0]?.data as Uint8Array[])[0])).toBe('héllo');
    } finally {
      await m.unload();
      await n.unload();
    }
  });

  // Whether the provider is installed or not (scripts/install-cuda-ep.sh), this process has
  // no driver and no LD_LIBRARY_PATH to the CUDA libraries; test/cuda-fallback.test.ts runs
  // servers with both.
  it('falls back to cpu with one warning that says why when the CUDA provider cannot be loaded', async () => {
    const { options, context, lines } = capturingLogger();
    const file = fixture('identity_fp32');
    const m = await onnxBackend.load(
      { modelName: 'gpu-model', version: undefined, dir: path.dirname(file), file, config: undefined },
      { ...options, executionProviders: ['cuda', 'cpu'] },
      context,
    );
    try {
      const out = await m.infer([{ name: 'INPUT0', datatype: 'FP32', shape: [1, 2], data: Float32Array.of(1.5, -2) }], ['OUTPUT0']);
      expect(Array.from(out[0]?.data as Float32Array)).toEqual([1.5, -2]);
      const warn = lines().find((l) => l['level'] === 40);
      expect(String(warn?.['msg'])).toMatch(/^CUDA execution provider unavailable \((libonnxruntime_providers_cuda\.so is not installed|.*cannot open shared object file)/);
      expect(lines().filter((l) => l['level'] === 40)).toHaveLength(1);
      expect(warn?.['model']).toBe('gpu-model');
    } finally {
      await m.unload();
    }
  });

  it('fails the load with a clear cause for bfloat16 models and for corrupt files', async () => {
    const { options, context } = capturingLogger();
    const bf16 = fixture('identity_bf16');
    await expect(onnxBackend.load({ modelName: 'bf', version: undefined, dir: path.dirname(bf16), file: bf16, config: undefined }, options, context)).rejects.toThrow(
      /bfloat16 \(BF16\).*onnxruntime-node cannot/,
    );
    const bad = path.join(tempDir({}), 'model.onnx');
    writeFileSync(bad, 'not an onnx model');
    await expect(onnxBackend.load({ modelName: 'bad', version: undefined, dir: path.dirname(bad), file: bad, config: undefined }, options, context)).rejects.toThrow(
      /protobuf|parse|load/i,
    );
  });

  it('fails pending requests, not the process, when its worker dies', async () => {
    const { options, context } = capturingLogger();
    const file = fixture('identity_fp32');
    const m = await onnxBackend.load({ modelName: 'm', version: undefined, dir: path.dirname(file), file, config: undefined }, options, context);
    await m.unload();
    await expect(m.infer([{ name: 'INPUT0', datatype: 'FP32', shape: [1, 1], data: Float32Array.of(1) }], ['OUTPUT0'])).rejects.toThrow(/model worker is gone/);
  });
});

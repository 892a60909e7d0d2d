/**
 * The runtime's ceiling: onnxruntime-node's `session.run` called back to back in this
 * process (one intra-op thread, as the servers get), after a warm-up.
 */
import path from 'node:path';
import ort from 'onnxruntime-node';
import { ROOT } from './harness.js';
import { type LoadResult, closedLoop } from './load.js';
import type { TensorSpec } from './payloads.js';

export async function inProcessCeiling(file: string, t: TensorSpec, data: Float32Array, seconds: number, warmSeconds: number): Promise<LoadResult> {
  const session = await ort.InferenceSession.create(path.join(ROOT, 'test/fixtures/models', file), { intraOpNumThreads: 1, interOpNumThreads: 1 });
  const feeds = { [t.input]: new ort.Tensor('float32', data, [...t.shape]) };
  try {
    await closedLoop('warm-up', 1, warmSeconds, () => session.run(feeds));
    return await closedLoop('onnxruntime-node in-process (sequential)', 1, seconds, () => session.run(feeds));
  } finally {
    await session.release();
  }
}

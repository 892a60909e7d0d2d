/**
 * Inline execution for tiny models. Handing a request to the session's worker thread costs
 * a postMessage each way and a thread wake-up; for a model whose whole inference takes a
 * few microseconds that hand-off is most of the server's time (benchmarks/RESULTS.md,
 * profiles). So a model whose warm-up inference at batch 1 takes at most
 * `inlineMaxMicros` also gets a session on the main thread, and requests up to
 * INLINE_SIZE_FACTOR times the warm-up's elements run there. Anything larger, and every
 * model that is not tiny, still runs in the worker, so the event loop is never blocked for
 * more than about INLINE_SIZE_FACTOR × inlineMaxMicros.
 *
 * Only CPU sessions, numeric inputs and small model files qualify (creating the inline
 * session blocks the loop while the file is read and optimised).
 */
import { statSync } from 'node:fs';
import { allocate, datatypeInfo, elementCount } from '../../../protocols/datatypes.js';
import type { TensorSpec } from '../../../protocols/tensor.js';
import type { OnnxJob, SessionSettings, WireTensor } from './onnx-messages.js';
import type { OnnxRunner } from './onnx-runner.js';
import { ortFromV2 } from './onnx-types.js';

/** Requests up to this many times the warm-up's input elements run inline. */
export const INLINE_SIZE_FACTOR = 16;
/** Larger model files are never loaded on the main thread. */
export const INLINE_MAX_MODEL_BYTES = 4 * 1024 * 1024;
const WARMUP_RUNS = 7;
/** Worker round trips above this (and above 10× the budget) rule a model out before measuring it inline. */
const WORKER_GATE_MIN_MICROS = 2000;

export interface InlinePlan {
  readonly runner: OnnxRunner;
  /** Largest total input element count a request may have to run inline. */
  readonly maxElements: number;
  /** Fastest warm-up time (µs). */
  readonly warmupMicros: number;
}

/** Why a model runs in its worker only; undefined when it qualifies to be measured. */
function disqualified(settings: SessionSettings, inputs: readonly TensorSpec[], maxMicros: number): string | undefined {
  if (maxMicros <= 0) return 'inline execution disabled';
  if (settings.executionProviders.some((p) => p !== 'cpu')) return 'non-CPU execution provider';
  if (statSync(settings.modelPath).size > INLINE_MAX_MODEL_BYTES) return 'model file too large';
  if (inputs.some((i) => datatypeInfo(i.datatype)?.arrayType === undefined)) return 'non-numeric input';
  return undefined;
}

/** Zero-filled inputs with every unknown dimension at 1. */
function warmupJob(inputs: readonly TensorSpec[], outputs: readonly TensorSpec[]): { job: OnnxJob; elements: number } {
  let elements = 0;
  const feeds: WireTensor[] = inputs.map((i) => {
    const dims = i.shape.map((d) => (d < 0 ? 1 : d));
    const count = elementCount(dims);
    elements += count;
    return { name: i.name, type: ortFromV2(i.datatype), dims, data: allocate(datatypeInfo(i.datatype)!, count) };
  });
  return { job: { feeds, fetches: outputs.map((o) => o.name) }, elements };
}

/**
 * Fastest time (µs) of WARMUP_RUNS runs of `run`. A run's promise settles through the event
 * loop, so while the server is already answering requests (a load that starts as soon as
 * the model is ready) each time also holds whatever else the loop ran meanwhile: the median
 * of a mlp_64x8 warm-up measured 35 µs idle and 391 µs under 32 connections, which kept the
 * model off the main thread for good. Every run takes at least the model's own cost, so the
 * fastest is the tightest bound on it from above and never lets a slower model in.
 */
async function fastestMicros(run: () => Promise<unknown>): Promise<number> {
  let fastest = Number.POSITIVE_INFINITY;
  for (let i = 0; i < WARMUP_RUNS; i++) {
    const t0 = process.hrtime.bigint();
    await run();
    fastest = Math.min(fastest, Number(process.hrtime.bigint() - t0) / 1000);
  }
  return fastest;
}

/**
 * Measures the model first through its worker (`inWorker`, so a slow model never blocks
 * the main thread, not even while being measured: the round trip bounds the run time from
 * above), then on a main-thread session; resolves with the plan when both are fast
 * enough, else releases that session and resolves undefined with the reason.
 */
export async function planInline(
  settings: SessionSettings,
  inputs: readonly TensorSpec[],
  outputs: readonly TensorSpec[],
  maxMicros: number,
  inWorker: (job: OnnxJob) => Promise<unknown>,
): Promise<{ plan: InlinePlan | undefined; reason: string }> {
  const reason = disqualified(settings, inputs, maxMicros);
  if (reason) return { plan: undefined, reason };
  const { job, elements } = warmupJob(inputs, outputs);
  try {
    // The round trip adds the hand-off (hundreds of µs on a busy machine): this only keeps
    // clearly slow models from being measured on the main thread at all.
    const roundTrip = await fastestMicros(() => inWorker(job));
    const gate = Math.max(10 * maxMicros, WORKER_GATE_MIN_MICROS);
    if (roundTrip > gate) return { plan: undefined, reason: `worker warm-up took ${roundTrip.toFixed(0)} µs (> ${gate})` };
  } catch (e) {
    return { plan: undefined, reason: `warm-up failed (${(e as Error).message.split('\n')[0]})` };
  }
  // onnxruntime-node is imported on the main thread only here, after the model is ready:
  // a server whose models all run in their workers never loads it there (start-up, RSS).
  const { createRunner } = await import('./onnx-runner.js');
  const runner = await createRunner({ ...settings, executionProviders: ['cpu'] }, []);
  let warmupMicros: number;
  try {
    warmupMicros = await fastestMicros(() => runner.run(job, (d) => d));
  } catch (e) {
    await runner.close();
    return { plan: undefined, reason: `warm-up failed (${(e as Error).message.split('\n')[0]})` };
  }
  if (warmupMicros > maxMicros) {
    await runner.close();
    return { plan: undefined, reason: `warm-up took ${warmupMicros.toFixed(0)} µs (> ${maxMicros})` };
  }
  return { plan: { runner, maxElements: elements * INLINE_SIZE_FACTOR, warmupMicros }, reason: `warm-up ${warmupMicros.toFixed(0)} µs` };
}

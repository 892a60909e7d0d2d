/**
 * Worker-thread entry that owns one text model's tokenizer: tokenizing, truncating and padding
 * a request's texts is CPU work that grows with the input list, so it runs here and the main
 * thread's event loop stays free (the same job loop as an ONNX session's,
 * server/workers/worker-loop.ts). Jobs run one at a time, in arrival order.
 */
import { workerData } from 'node:worker_threads';
import { serveJobs } from '../../workers/worker-loop.js';
import { padChunks } from './padded-chunk.js';
import type { TokenizeJob, TokenizeResult, TokenizerLoaded, TokenizerWorkerData } from './tokenizer-messages.js';
import { TextTokenizer } from './text-tokenizer.js';

const data = workerData as TokenizerWorkerData;

/** Words of the hold buffer: [0] 1 while held, [1] jobs waiting now, [2] waits that ran out. */
const HOLDING = 0;
const WAITING = 1;
const TIMED_OUT = 2;
/** Bounds a wait nobody releases, so a broken test fails instead of hanging its thread. */
const HOLD_BOUND_MS = 120_000;

function passHold(hold: Int32Array): void {
  if (Atomics.load(hold, HOLDING) !== 1) return;
  Atomics.add(hold, WAITING, 1);
  const woke = Atomics.wait(hold, HOLDING, 1, HOLD_BOUND_MS);
  Atomics.sub(hold, WAITING, 1);
  if (woke === 'timed-out') Atomics.add(hold, TIMED_OUT, 1);
}

void serveJobs<TokenizerLoaded, TokenizeJob, TokenizeResult>(() => {
  const { tokenizerJson, tokenizerConfig, maxLength } = data.source;
  const tokenizer = new TextTokenizer(tokenizerJson, tokenizerConfig, maxLength);
  const hold = data.hold === undefined ? undefined : new Int32Array(data.hold);
  return Promise.resolve({
    loaded: { maxLength: tokenizer.maxLength, vocabularySize: tokenizer.vocabularySize, padId: tokenizer.padId },
    runner: {
      run: (job, transfer) => {
        if (hold !== undefined) passHold(hold);
        const encoded = 'texts' in job ? job.texts.map((t) => tokenizer.encode(t)) : job.documents.map((d) => tokenizer.encodePair(job.query, d));
        const chunks = padChunks(encoded, data.chunkRows, tokenizer.padId);
        for (const c of chunks) for (const a of [c.lengths, c.ids, c.attention, c.typeIds]) transfer.add(a.buffer as ArrayBuffer);
        return Promise.resolve(chunks);
      },
      close: () => undefined,
    },
  });
});

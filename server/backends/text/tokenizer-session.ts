/**
 * The main-thread side of a text model's tokenizer worker (tokenizer-worker.ts): hands it a
 * request's texts and gets them back tokenized, truncated and padded in chunks, so a long
 * input list never holds the event loop. The plumbing (ordering, cancellation, a worker
 * that dies) is server/workers/worker-session.ts's contract.
 */
import type { LoadContext, LoadSpec } from '../../backend/backend.js';
import type { ClientSignal } from '../../client-signal.js';
import { spawnWorker } from '../../workers/worker-entry.js';
import { WorkerSession } from '../../workers/worker-session.js';
import type { PaddedChunk } from './padded-chunk.js';
import type { TokenizeJob, TokenizeResult, TokenizerLoaded, TokenizerSource } from './tokenizer-messages.js';

export interface TokenizerStart {
  readonly chunkRows: number;
  /** A test's hold (tokenizer-messages.ts); undefined in production. */
  readonly hold?: SharedArrayBuffer | undefined;
}

export class TokenizerSession implements TokenizerLoaded {
  readonly #session: WorkerSession<TokenizeJob, TokenizeResult>;
  readonly maxLength: number;
  readonly vocabularySize: number;
  readonly padId: number;

  private constructor(session: WorkerSession<TokenizeJob, TokenizeResult>, loaded: TokenizerLoaded) {
    this.#session = session;
    this.maxLength = loaded.maxLength;
    this.vocabularySize = loaded.vocabularySize;
    this.padId = loaded.padId;
  }

  /** Starts the worker and resolves once it has built the tokenizer (a bad tokenizer fails the load here). */
  static async start(source: TokenizerSource, spec: LoadSpec, context: LoadContext, start: TokenizerStart): Promise<TokenizerSession> {
    const index = spec.instance === undefined || spec.instance.count === 1 ? '' : `#${spec.instance.index}`;
    const worker = spawnWorker(import.meta.url, 'tokenizer-worker', {
      workerData: { source, chunkRows: start.chunkRows, hold: start.hold },
      name: `tokenizer:${spec.modelName}${index}`,
    });
    const session = new WorkerSession<TokenizeJob, TokenizeResult>(worker, { label: 'tokenizer', modelName: spec.modelName, logger: context.logger });
    const loaded = await session.ready((l: TokenizerLoaded) => l);
    return new TokenizerSession(session, loaded);
  }

  /** `texts` with special tokens, truncated to maxLength, in padded chunks (in order). */
  encode(texts: string[], signal?: ClientSignal): Promise<PaddedChunk[]> {
    return this.#session.run({ texts }, [], signal);
  }

  /** (query, document) pairs, truncated longest-first, in padded chunks (in order). */
  encodePairs(query: string, documents: string[], signal?: ClientSignal): Promise<PaddedChunk[]> {
    return this.#session.run({ query, documents }, [], signal);
  }

  unload(): Promise<void> {
    return this.#session.unload();
  }

  onFailure(listener: (err: Error) => void): void {
    this.#session.onFailure(listener);
  }
}

/**
 * The generic worker mechanism's parts that a custom model's worker mode needs
 * (worker-loop.ts, worker-session.ts, worker-entry.ts), through a real worker thread whose
 * jobs meet the test through shared memory (worker-loop.test-worker.ts): a running job
 * learns that its client went away, a concurrent runner interleaves jobs and skips one whose
 * client went away before it started, a catalogue load error keeps its kind, the backend
 * says what jobs answer once the worker is gone, and preloads run before the entry.
 */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { KServeError, errors } from '../../protocols/errors.js';
import { mainThreadImports, spawnWorker } from './worker-entry.js';
import type { LoopJob, LoopWorkerData } from './worker-loop.test-worker.js';
import { WorkerSession } from './worker-session.js';

/** Slots of the shared flags, as worker-loop.test-worker.ts names them. */
const STARTED = 0;
const SAW_ABORT = 1;
const GATE = 2;

class FlagSignal {
  aborted = false;
}

function start(data: Omit<LoopWorkerData, 'flags'>, gone?: (cause: Error) => KServeError, preloads: readonly string[] = []) {
  const shared = new SharedArrayBuffer(4 * Int32Array.BYTES_PER_ELEMENT);
  const logger = pino({ level: 'silent' }, new Writable({ write: (_c, _e, cb) => cb() }));
  const worker = spawnWorker(import.meta.url, 'worker-loop.test-worker', { workerData: { ...data, flags: shared } }, preloads);
  const session = new WorkerSession<LoopJob, string>(worker, { label: 'loop', modelName: 'm', logger, ...(gone === undefined ? {} : { gone }) });
  return { session, flags: new Int32Array(shared) };
}

/** Waits until `done` (bounded by the test's own timeout). */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((r) => setTimeout(r, 5));
}

describe('worker loop', () => {
  it.each([false, true])('a running job sees its signal aborted when its client goes away (concurrent: %s)', async (concurrent) => {
    const { session, flags } = start({ concurrent });
    await session.ready(() => undefined);
    const signal = new FlagSignal();
    const watched = session.run({ op: 'watch' }, [], signal);
    await until(() => Atomics.load(flags, STARTED) === 1);
    signal.aborted = true;
    await expect(watched).rejects.toMatchObject({ kind: 'Cancelled' });
    await until(() => Atomics.load(flags, SAW_ABORT) === 1);
    // The worker serves on.
    expect(await session.run({ op: 'count' })).toBe('1');
    await session.unload();
  });

  it('a concurrent runner starts each job as it arrives: a job waiting for a later one finishes', async () => {
    const { session } = start({ concurrent: true });
    await session.ready(() => undefined);
    expect(await Promise.all([session.run({ op: 'wait' }), session.run({ op: 'open' })])).toEqual(['gate opened', 'opened']);
    await session.unload();
  });

  it('a concurrent runner skips a job whose client went away before it started', async () => {
    const { session, flags } = start({ concurrent: true });
    await session.ready(() => undefined);
    const blocking = session.run({ op: 'block' });
    await until(() => Atomics.load(flags, STARTED) === 1);
    const signal = new FlagSignal();
    const queued = session.run({ op: 'count' }, [], signal);
    // Handed to the (blocked) worker at this turn's end, before its client goes.
    await new Promise((r) => setImmediate(r));
    signal.aborted = true;
    // Answered Cancelled once the cancel message is posted: both wait in the worker's queue.
    await expect(queued).rejects.toMatchObject({ kind: 'Cancelled' });
    Atomics.store(flags, GATE, 1);
    Atomics.notify(flags, GATE);
    expect(await blocking).toBe('unblocked');
    // The first count that ran: the cancelled one never did.
    expect(await session.run({ op: 'count' })).toBe('1');
    await session.unload();
  });

  it('a load that throws a catalogue error keeps its kind; any other error stays a plain Error', async () => {
    const kinded = start({ concurrent: false, failLoad: { message: 'Model with name m is not ready. load() said no', kind: 'ModelNotReady' } });
    const kindError = await kinded.session.ready(() => undefined).catch((e: unknown) => e);
    expect(kindError).toBeInstanceOf(KServeError);
    expect(kindError).toMatchObject({ kind: 'ModelNotReady', message: 'Model with name m is not ready. load() said no' });
    const plain = start({ concurrent: false, failLoad: { message: 'no such file' } });
    const plainError = await plain.session.ready(() => undefined).catch((e: unknown) => e);
    expect(plainError).not.toBeInstanceOf(KServeError);
    expect(plainError).toMatchObject({ message: 'no such file' });
  });

  it('`gone` says what pending and later jobs answer once the worker is gone', async () => {
    const { session } = start({ concurrent: true }, (cause) => errors.modelNotReady('m', cause.message));
    await session.ready(() => undefined);
    await expect(session.run({ op: 'exit' })).rejects.toMatchObject({ kind: 'ModelNotReady', message: 'Model with name m is not ready. loop worker exited with code 3' });
    await expect(session.run({ op: 'count' })).rejects.toMatchObject({ kind: 'ModelNotReady', message: 'Model with name m is not ready. loop worker exited with code 3' });
  });
});

describe('worker entry', () => {
  it.each([
    ['the command line', ['--import', 'tsx', '--enable-source-maps', '--import=./register.mjs'], undefined, ['tsx', './register.mjs']],
    ['NODE_OPTIONS', [], '--max-old-space-size=4096 --import tsx --import="./my loader.mjs"', ['tsx', './my loader.mjs']],
    ['both, command line first', ['--import', 'a'], '--import=b', ['a', 'b']],
    ['neither', ['--inspect'], '', []],
  ])('mainThreadImports reads --import from %s', (_from, execArgv, nodeOptions, expected) => {
    expect(mainThreadImports(execArgv, nodeOptions)).toEqual(expected);
  });

  it('a worker imports its preloads before its entry', async () => {
    const preload = `data:text/javascript,globalThis.preloaded = 'yes'`;
    const { session } = start({ concurrent: false, preloadCheck: true }, undefined, [preload]);
    expect(await session.ready((loaded: unknown) => loaded)).toBe('yes');
    await session.unload();
  });
});

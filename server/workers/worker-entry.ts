/**
 * Starts a worker thread whose entry module sits beside the calling module. Compiled builds
 * run the `.js` file directly; when the server runs from TypeScript sources (tests, tsx)
 * the worker first registers the tsx loader, because loader hooks of the parent thread do
 * not reach worker threads (Node 20 and 24 alike).
 *
 * `preloads` are modules the worker imports before its entry, as the process's `--import`
 * flags did on the main thread (`mainThreadImports`): a worker that runs user code (a
 * custom model's module) then imports what the main thread can, e.g. a `.ts` module under
 * `node --import tsx`. Like `--import`, each is resolved from the working directory.
 */
import { Worker, type WorkerOptions } from 'node:worker_threads';

export function spawnWorker(callerUrl: string, baseName: string, options: WorkerOptions, preloads: readonly string[] = []): Worker {
  const fromSources = callerUrl.endsWith('.ts');
  if (!fromSources && preloads.length === 0) return new Worker(new URL(`./${baseName}.js`, callerUrl), options);
  const entry = new URL(`./${baseName}.${fromSources ? 'ts' : 'js'}`, callerUrl).href;
  const imports = fromSources ? ['tsx', ...preloads.filter((p) => p !== 'tsx')] : preloads;
  const steps = [...imports.map(preloadStep), `await import(${JSON.stringify(entry)});`];
  // Eval code resolves `import()` from the working directory, as Node resolves `--import`.
  // A step that fails rejects here, which ends the worker with that error (its 'error' event).
  const bootstrap = `(async () => { ${steps.join(' ')} })();`;
  return new Worker(bootstrap, { ...options, eval: true });
}

/**
 * One preload as worker code. tsx's `--import` entry registers its ESM hooks on the main
 * thread only before Node 22.22 / 24.11.1 (where it cannot tell its own hooks thread from a
 * worker); its API registers them in any thread, and `tsx/cjs` its require hooks, which
 * the entry registers too (a `.ts` file outside a `"type": "module"` package is CommonJS).
 */
function preloadStep(specifier: string): string {
  if (specifier === 'tsx') return "await import('tsx/cjs'); (await import('tsx/esm/api')).register();";
  return `await import(${JSON.stringify(specifier)});`;
}

/**
 * The modules the process imports before its main module (`--import X`, `--import=X`),
 * from its command line (`execArgv`) and from NODE_OPTIONS, which Node reads as a command
 * line of its own (space-separated, double quotes around a value with spaces).
 */
export function mainThreadImports(execArgv: readonly string[], nodeOptions: string | undefined): string[] {
  const imports: string[] = [];
  for (const args of [execArgv, splitNodeOptions(nodeOptions ?? '')]) {
    for (let i = 0; i < args.length; i++) {
      const arg = args[i] as string;
      if (arg === '--import' && i + 1 < args.length) imports.push(args[++i] as string);
      else if (arg.startsWith('--import=')) imports.push(arg.slice('--import='.length));
    }
  }
  return imports;
}

function splitNodeOptions(text: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c === '\\' && quoted && i + 1 < text.length) word = (word ?? '') + text[++i];
    else if (c === '"') {
      quoted = !quoted;
      word ??= '';
    } else if (c === ' ' && !quoted) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else word = (word ?? '') + c;
  }
  if (word !== undefined) words.push(word);
  return words;
}

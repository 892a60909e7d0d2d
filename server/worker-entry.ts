/**
 * Starts a worker thread whose entry module sits beside the calling module. Compiled builds
 * run the `.js` file directly; when the server runs from TypeScript sources (tests, tsx)
 * the worker first registers the tsx loader, because loader hooks of the parent thread do
 * not reach worker threads on Node 20.
 */
import { Worker, type WorkerOptions } from 'node:worker_threads';

export function spawnWorker(callerUrl: string, baseName: string, options: WorkerOptions): Worker {
  if (!callerUrl.endsWith('.ts')) return new Worker(new URL(`./${baseName}.js`, callerUrl), options);
  const entry = new URL(`./${baseName}.ts`, callerUrl).href;
  const bootstrap = `import('tsx/esm/api').then((m) => { m.register(); return import(${JSON.stringify(entry)}); })`;
  return new Worker(bootstrap, { ...options, eval: true });
}

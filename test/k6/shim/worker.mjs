// Runs one k6 script's default function ITERATIONS times as one VU would, with k6's globals
// (__ENV, __VU, __ITER), then reports its checks, counters and exported options.
import { parentPort, workerData } from 'node:worker_threads';
import { pathToFileURL } from 'node:url';
import { results } from './bridge.mjs';

const { script, env, iterations } = workerData;
globalThis.__ENV = env;
globalThis.__VU = 1;
globalThis.__ITER = 0;

let error;
let options;
try {
  const mod = await import(pathToFileURL(script).href);
  options = JSON.parse(JSON.stringify(mod.options ?? {}));
  if (typeof mod.setup === 'function') mod.setup();
  for (let i = 0; i < iterations; i++) {
    globalThis.__ITER = i;
    mod.default();
  }
  if (typeof mod.teardown === 'function') mod.teardown();
} catch (e) {
  error = e instanceof Error ? `${e.message}\n${e.stack}` : String(e);
}
// Through parentPort, not the bridge's port: its messages arrive before the 'exit' event.
parentPort.postMessage({ done: true, results, options, error });

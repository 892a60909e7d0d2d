// The subset of the `k6` module the scripts use: check and sleep.
import { results } from './bridge.mjs';

export function check(value, sets) {
  let all = true;
  for (const [name, fn] of Object.entries(sets)) {
    let ok;
    try {
      ok = Boolean(fn(value));
    } catch {
      ok = false; // k6 counts a throwing check as failed
    }
    const c = (results.checks[name] ??= { passes: 0, fails: 0 });
    if (ok) c.passes += 1;
    else c.fails += 1;
    all &&= ok;
  }
  return all;
}

export function sleep(seconds) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Math.max(0, seconds * 1000));
}

export default { check, sleep };

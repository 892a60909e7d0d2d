/**
 * V8's code cache for the modules Node loads (Node 22.1+: module.enableCompileCache; a no-op
 * on Node 20, which lacks it). Node picks the folder: NODE_COMPILE_CACHE when set, else
 * <tmpdir>/node-compile-cache, and NODE_DISABLE_COMPILE_CACHE=1 turns it off; entries are
 * keyed by Node version and file content. An unwritable folder only means no cache, never a
 * failed start.
 */
import module from 'node:module';

type CacheApi = { enableCompileCache?: () => unknown; flushCompileCache?: () => void };
const api = module as CacheApi;

/** Must run before the modules to cache are imported (bin/ imports its subcommands lazily for this). */
export function enableCompileCache(): void {
  try {
    api.enableCompileCache?.();
  } catch {
    // Start-up speed only.
  }
}

/**
 * Writes what has been compiled so far (Node 22.10+). Node writes the cache at a normal exit
 * only; a server usually ends on a signal, and one killed (OOM, SIGKILL after the grace
 * period) would never leave a cache for the next start. Called once the server is ready,
 * when every start-up module has been compiled.
 */
export function flushCompileCache(): void {
  try {
    api.flushCompileCache?.();
  } catch {
    // Start-up speed only.
  }
}

/**
 * Which onnxruntime execution providers a model can use, and why not.
 *
 * The CUDA provider is two libraries (libonnxruntime_providers_cuda.so, _shared.so) that
 * onnxruntime loads from the folder of libonnxruntime.so.1 inside the onnxruntime-node
 * package; they are not in the npm package (scripts/install-cuda-ep.sh links them there from
 * the onnxruntime-gpu wheel). When loading them fails, onnxruntime-node's error says only
 * "Failed to load shared library" and the cause goes to onnxruntime's own stderr log, so the
 * cause is found here with the same dlopen the runtime makes.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

/** The folder onnxruntime loads provider libraries from. */
export function bindingDir(): string {
  const pkg = createRequire(import.meta.url).resolve('onnxruntime-node/package.json');
  return path.join(path.dirname(pkg), 'bin', 'napi-v6', process.platform, process.arch);
}

export const CUDA_PROVIDER_LIBRARY = 'libonnxruntime_providers_cuda.so';

/**
 * Why the CUDA provider cannot be loaded into this process, or undefined when it can: not
 * installed, or the dynamic loader's own message (a CUDA library missing from
 * LD_LIBRARY_PATH, or the driver's libcuda.so.1 absent on a machine without an NVIDIA driver).
 * Loading it succeeds on a GPU machine and costs nothing later: onnxruntime gets the same handle.
 */
export function cudaUnavailableReason(dir: string = bindingDir()): string | undefined {
  const lib = path.join(dir, CUDA_PROVIDER_LIBRARY);
  if (!existsSync(lib)) {
    return `${CUDA_PROVIDER_LIBRARY} is not installed in ${dir} (run scripts/install-cuda-ep.sh)`;
  }
  try {
    process.dlopen({ exports: {} }, lib, os.constants.dlopen.RTLD_LAZY);
  } catch (e) {
    const message = (e as Error).message;
    // Not a Node addon: dlopen itself succeeded, only the addon registration failed.
    if (message.includes('did not self-register') || message.includes('Module did not')) return undefined;
    return message.split('\n')[0];
  }
  return undefined;
}

/**
 * The providers to create a session with, in order. An unavailable CUDA provider is dropped
 * with one warning when cpu is also listed; when it was the only choice, the load fails.
 */
export function resolveProviders(
  wanted: readonly string[],
  warn: (message: string) => void,
  cudaReason: () => string | undefined = cudaUnavailableReason,
): string[] {
  const out: string[] = [];
  for (const p of wanted) {
    if (out.includes(p)) continue;
    if (p === 'cuda') {
      const reason = cudaReason();
      if (reason !== undefined) {
        if (!wanted.includes('cpu')) {
          throw new Error(`execution providers [${wanted.join(', ')}]: the CUDA execution provider cannot be loaded: ${reason}`);
        }
        warn(`CUDA execution provider unavailable (${reason}); the model runs on cpu`);
        continue;
      }
    }
    out.push(p);
  }
  return out;
}

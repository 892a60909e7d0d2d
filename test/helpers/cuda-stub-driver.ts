/**
 * A stub NVIDIA driver (test/fixtures/cuda-stub/libcuda-stub.c) compiled with the machine's C
 * compiler into a fresh folder named `libcuda.so.1`: put that folder first on LD_LIBRARY_PATH
 * and the real CUDA execution provider loads past symbol resolution, then CUDA initialisation
 * fails inside onnxruntime (cudaErrorInsufficientDriver), as far as a CPU machine can get.
 * No compiler is an error, never a skip: these tests are the only CPU-side check of the path.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT } from './server.js';

export const STUB_SOURCE = path.join(ROOT, 'test/fixtures/cuda-stub/libcuda-stub.c');

/** What onnxruntime reports when the CUDA runtime meets the stub: error 35 at the first CUDA call. */
export const STUB_FAILURE = /CUDA failure 35: CUDA driver version is insufficient for CUDA runtime version/;

export interface StubDriver {
  /** The folder holding libcuda.so.1 (world-readable, so a container's user can mount it). */
  readonly dir: string;
  cleanup(): void;
}

export function buildStubDriver(): StubDriver {
  const dir = mkdtempSync(path.join(tmpdir(), 'kserve-ts-cuda-stub-'));
  const cc = process.env['CC'] ?? 'cc';
  try {
    // No C library: the stub defines one function and must load under any glibc.
    execFileSync(cc, ['-shared', '-fPIC', '-nostdlib', '-Wl,-soname,libcuda.so.1', '-o', path.join(dir, 'libcuda.so.1'), STUB_SOURCE], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`compiling the stub driver with '${cc}' failed (a C compiler is required; set CC to choose one): ${(e as Error).message}`, { cause: e });
  }
  chmodSync(dir, 0o755);
  chmodSync(path.join(dir, 'libcuda.so.1'), 0o755);
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

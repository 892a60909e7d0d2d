/**
 * Which onnxruntime execution providers a model is created with, and why one failed.
 *
 * The CUDA provider is two libraries (libonnxruntime_providers_cuda.so, _shared.so) that
 * onnxruntime loads from the folder of libonnxruntime.so.1 inside the onnxruntime-node
 * package; they are not in the npm package (scripts/install-cuda-ep.sh links them there from
 * the onnxruntime-gpu wheel). Only onnxruntime loads them, in its order (the shared bridge
 * first, with RTLD_GLOBAL, then the provider, which resolves its Provider_GetHost from it):
 * the server never loads the provider itself. A load by hand cannot succeed (the provider
 * alone misses that symbol) and with the bridge preloaded it crashes the process.
 *
 * What the server may do is cheap and loads nothing: check that the provider file is there
 * before a session asks for it, and, when onnxruntime's error is only "Failed to load shared
 * library" (its cause goes only to onnxruntime's own logger, kept to FATAL by native-log.ts;
 * the Node binding offers no way to route it through the server's), ask the dynamic loader in a child process which dependency it cannot
 * find (`ld.so --list`: lists, runs none of the library's code).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/** The folder onnxruntime loads provider libraries from. */
export function bindingDir(): string {
  const pkg = createRequire(import.meta.url).resolve('onnxruntime-node/package.json');
  return path.join(path.dirname(pkg), 'bin', 'napi-v6', process.platform, process.arch);
}

export const CUDA_PROVIDER_LIBRARY = 'libonnxruntime_providers_cuda.so';

/** How the warnings and errors name a provider. */
const LABEL: Readonly<Record<string, string>> = { cuda: 'CUDA' };
const label = (provider: string) => LABEL[provider] ?? provider;

/** A file check, nothing loaded: the CUDA provider is not installed where onnxruntime looks. */
export function cudaNotInstalledReason(dir: string = bindingDir()): string | undefined {
  if (existsSync(path.join(dir, CUDA_PROVIDER_LIBRARY))) return undefined;
  return `${CUDA_PROVIDER_LIBRARY} is not installed in ${dir} (run scripts/install-cuda-ep.sh)`;
}

/** The warning when `provider` could not be used and the model runs on the CPU instead. */
export function fallbackWarning(provider: string, reason: string): string {
  return `${label(provider)} execution provider unavailable (${reason}); the model runs on cpu`;
}

/** The load error when `provider` could not be used and the model's list has no cpu to fall back to. */
export function providerLoadError(wanted: readonly string[], provider: string, reason: string): Error {
  return new Error(`execution providers [${wanted.join(', ')}]: the ${label(provider)} execution provider cannot be loaded: ${reason}`);
}

/**
 * The providers to create a session with, in order. A CUDA provider that is not installed
 * is dropped with one warning when cpu is also listed; when it was the only choice, the load
 * fails. Whether an installed one works is onnxruntime's to find out (onnx-runner.ts).
 */
export function resolveProviders(wanted: readonly string[], warn: (message: string) => void, cudaNotInstalled: () => string | undefined = cudaNotInstalledReason): string[] {
  const out: string[] = [];
  for (const p of wanted) {
    if (out.includes(p)) continue;
    if (p === 'cuda') {
      const reason = cudaNotInstalled();
      if (reason !== undefined) {
        if (!wanted.includes('cpu')) throw providerLoadError(wanted, p, reason);
        warn(fallbackWarning(p, reason));
        continue;
      }
    }
    out.push(p);
  }
  return out;
}

/** The dynamic loader of this process's architecture, where glibc keeps it. */
const LOADERS: Readonly<Record<string, string>> = { x64: '/lib64/ld-linux-x86-64.so.2', arm64: '/lib/ld-linux-aarch64.so.1' };

/** onnxruntime's C++ throw site ahead of its message: `<file>:<line> <signature> [with ...] `. */
const THROW_SITE = /^(?:\/\S+:\d+ [^[]*\[with [^\]]*\] )+/;

/**
 * onnxruntime's error for a session that failed on a provider, as the reason users read:
 * the message without its C++ throw sites, on one line. When it is only "Failed to load
 * shared library", the dynamic loader's own answer for the provider is appended (e.g.
 * `libcuda.so.1: cannot open shared object file: No such file or directory`).
 */
export function providerFailureReason(message: string, dir: string = bindingDir()): string {
  const text = message.replace(THROW_SITE, '').replace(/\s+/g, ' ').trim().replace(/\s*;$/, '');
  if (!text.includes('Failed to load shared library')) return text;
  const missing = loaderMissing(path.join(dir, CUDA_PROVIDER_LIBRARY));
  return missing === undefined ? text : `${text} (${missing})`;
}

/** What the dynamic loader cannot resolve for `library` (from `ld.so --list`), or undefined. */
function loaderMissing(library: string): string | undefined {
  const loader = LOADERS[process.arch];
  if (loader === undefined || !existsSync(loader) || !existsSync(library)) return undefined;
  const r = spawnSync(loader, ['--list', library], { encoding: 'utf8', timeout: 10_000, stdio: ['ignore', 'pipe', 'pipe'] });
  const line = /error while loading shared libraries: (.+)/.exec(r.stderr ?? '');
  if (line?.[1] !== undefined) return line[1].trim();
  const notFound = /^\s*(\S+) => not found$/m.exec(r.stdout ?? '');
  return notFound?.[1] === undefined ? undefined : `${notFound[1]}: not found`;
}

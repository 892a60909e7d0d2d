/** The `onnx` backend: onnxruntime-node sessions, each in its own worker thread. */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Backend, LoadOptions, LoadSpec, ModelInstance } from '../../backend.js';
import { OnnxInstance } from './onnx-instance.js';

/**
 * Whether onnxruntime-node's CUDA provider libraries are installed. They are not in the npm
 * package: its install script fetches them from NuGet, which we skip by default (.npmrc).
 */
export function cudaProviderInstalled(): boolean {
  try {
    const pkg = createRequire(import.meta.url).resolve('onnxruntime-node/package.json');
    const dir = path.join(path.dirname(pkg), 'bin', 'napi-v6', process.platform, process.arch);
    return existsSync(path.join(dir, 'libonnxruntime_providers_cuda.so'));
  } catch {
    return false;
  }
}

/** Drops providers whose binaries are missing, with a warning; always ends with cpu. */
export function usableProviders(wanted: readonly string[], options: LoadOptions, modelName: string): string[] {
  const out: string[] = [];
  for (const p of wanted) {
    if (p === 'cuda' && !cudaProviderInstalled()) {
      options.logger.warn(
        { model: modelName },
        'CUDA execution provider requested but onnxruntime-node was installed without its CUDA binaries ' +
          '(reinstall with ONNXRUNTIME_NODE_INSTALL=cuda12 where the NuGet feed is reachable); using cpu',
      );
      continue;
    }
    if (!out.includes(p)) out.push(p);
  }
  if (!out.includes('cpu')) out.push('cpu');
  return out;
}

export const onnxBackend: Backend = {
  name: 'onnx',
  aliases: ['onnxruntime', 'onnxruntime_onnx'],

  async detect(dir: string, names: readonly string[]): Promise<string | undefined> {
    if (names.includes('model.onnx')) return path.join(dir, 'model.onnx');
    const onnx = names.filter((n) => n.endsWith('.onnx')).sort();
    if (onnx.length === 1) return path.join(dir, onnx[0] as string);
    if (onnx.length > 1) {
      throw new Error(`${dir} holds several .onnx files (${onnx.join(', ')}); name the one to serve model.onnx`);
    }
    return undefined;
  },

  async load(spec: LoadSpec, options: LoadOptions): Promise<ModelInstance> {
    const providers = usableProviders(options.executionProviders, options, spec.modelName);
    return OnnxInstance.create(spec, options, providers);
  },
};

/** The `onnx` backend: onnxruntime-node sessions, each in its own worker thread. */
import path from 'node:path';
import type { Backend, LoadOptions, LoadSpec, ModelInstance } from '../../backend.js';
import { resolveProviders } from './execution-providers.js';
import { OnnxInstance } from './onnx-instance.js';

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
    const providers = resolveProviders(options.executionProviders, (m) => options.logger.warn({ model: spec.modelName }, m));
    return OnnxInstance.create(spec, options, providers);
  },
};

/** The `onnx` backend: onnxruntime-node sessions, each in its own worker thread. */
import path from 'node:path';
import { requirePackage } from '../../../cli/optional-package.js';
import type { Backend, LoadContext, LoadSpec, ModelInstance } from '../../backend/backend.js';
import { resolveProviders } from './execution-providers.js';
import { placeInstance } from './instance-placement.js';
import { OnnxInstance } from './onnx-instance.js';
import { ONNX_FLAGS, type OnnxOptions, type OnnxSettings, onnxModelOptions, onnxSettings } from './onnx-options.js';
import { configureOrtTelemetry } from './telemetry.js';

/** Its install script fetches the CUDA provider from NuGet, which registry-only networks cannot reach. */
const NUGET_HINT = 'with ONNXRUNTIME_NODE_INSTALL=skip where api.nuget.org is unreachable';

export const onnxBackend: Backend<OnnxSettings, OnnxOptions> = {
  name: 'onnx',
  aliases: ['onnxruntime', 'onnxruntime_onnx'],
  flags: ONNX_FLAGS,
  // Every instance is a session on a worker thread of its own (instance-placement.ts).
  instanceGroups: { multiple: true, gpu: true },
  settings: onnxSettings,
  modelOptions: onnxModelOptions,

  prepareProcess(settings: OnnxSettings): void {
    configureOrtTelemetry(settings.telemetry);
  },

  async detect(dir: string, names: readonly string[]): Promise<string | undefined> {
    if (names.includes('model.onnx')) return path.join(dir, 'model.onnx');
    const onnx = names.filter((n) => n.endsWith('.onnx')).sort();
    if (onnx.length === 1) return path.join(dir, onnx[0] as string);
    if (onnx.length > 1) {
      throw new Error(`${dir} holds several .onnx files (${onnx.join(', ')}); name the one to serve model.onnx`);
    }
    return undefined;
  },

  async load(spec: LoadSpec, modelOptions: OnnxOptions, context: LoadContext): Promise<ModelInstance> {
    // An optional peer dependency, imported in the model's worker: asked for here, once, by name.
    requirePackage('onnxruntime-node', 'an ONNX model (the onnx backend)', NUGET_HINT);
    const options = placeInstance(modelOptions, spec.instance);
    const instance = spec.instance !== undefined && spec.instance.count > 1 ? { instance: spec.instance.index } : {};
    const providers = resolveProviders(options.executionProviders, (m) => context.logger.warn({ model: spec.modelName, ...instance }, m));
    return OnnxInstance.create(spec, options, context, providers);
  },
};

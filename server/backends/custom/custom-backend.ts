/**
 * The custom-model backend: serves a TypeScript/JavaScript Model (model.ts, public as the package entry server/sdk/) named by
 * `--model_module`, as KServe's custom-model containers serve a `kserve.Model` subclass.
 * It owns that flag (declared in the shared table through `flags`) and provides the model
 * under --model_name; --model_dir then goes to the model (its `modelDir` option) instead of
 * being loaded as a file-backed model. It loads no model folders itself (`detect` finds
 * nothing), so repository models keep going to onnx and tensorflow.
 */
import type { Flags } from '../../../cli/flags.js';
import { errors } from '../../../protocols/errors.js';
import type { Backend, ModelInstance, ProvidedModel } from '../../backend/backend.js';
import { PREDICTOR_FLAGS, type PredictorConfig, predictorConfigFrom } from '../../predictor-client/predictor-config.js';
import { mainThreadImports } from '../../workers/worker-entry.js';
import { modelFromModule } from './load-module.js';
import { loadModel } from './model-adapter.js';
import { workerModel } from './worker-model.js';

export interface CustomSettings {
  /** --model_module, or undefined when not given. */
  readonly module: string | undefined;
  /** --model_module_worker: run the model's hooks in a worker thread of its own. */
  readonly worker: boolean;
  /**
   * The process's `--import` modules (command line and NODE_OPTIONS), which the model's
   * worker imports too: a module the main thread can import (a `.ts` one under
   * `--import tsx`) then imports in worker mode as well.
   */
  readonly preloads: readonly string[];
  /** The --predictor_* flags (transformer mode), handed to the model; undefined without --predictor_host. */
  readonly predictor: PredictorConfig | undefined;
}

export const customBackend: Backend<CustomSettings, CustomSettings> = {
  name: 'custom',
  aliases: [],
  flags: [
    {
      name: 'model_module',
      kind: 'string',
      dflt: '',
      placeholder: 'PATH',
      help: 'JavaScript module exporting a kserve-ts Model subclass or factory, served as --model_name (--model_dir is handed to it)',
    },
    {
      name: 'model_module_worker',
      kind: 'bool',
      dflt: 'false',
      help: "run the --model_module model's hooks in a worker thread of its own, for blocking code (tensors are copied to it)",
    },
    ...PREDICTOR_FLAGS,
  ],
  settings(flags: Flags): CustomSettings {
    return {
      module: flags.string('model_module') || undefined,
      worker: flags.bool('model_module_worker'),
      preloads: mainThreadImports(process.execArgv, process.env['NODE_OPTIONS']),
      predictor: predictorConfigFrom(flags),
    };
  },
  modelOptions(settings: CustomSettings, parameters: ReadonlyMap<string, string>): CustomSettings {
    for (const k of parameters.keys()) throw errors.invalidInput(`config.pbtxt parameter '${k}' is not read by the custom backend`);
    return settings;
  },
  async detect(): Promise<string | undefined> {
    return undefined;
  },
  async load(): Promise<ModelInstance> {
    throw errors.invalidInput('the custom backend loads no model folders; serve a Model with --model_module or ModelServer');
  },
  providedModels(settings, server): ReadonlyMap<string, ProvidedModel> {
    const file = settings.module;
    if (file === undefined) return new Map();
    const options = { name: server.modelName, modelDir: server.modelDir, predictor: settings.predictor };
    // Each (re)load imports the module (cached by Node) and makes a fresh model.
    const provided: ProvidedModel = settings.worker
      ? workerModel(file, options, settings.preloads)
      : { load: async (context) => loadModel(await modelFromModule(file, options), context.logger) };
    return new Map([[server.modelName, provided]]);
  },
};

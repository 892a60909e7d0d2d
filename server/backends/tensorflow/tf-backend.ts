/**
 * The `tensorflow` backend. Two paths, chosen per model at load time and logged:
 * - native: a SavedModel (`saved_model.pb`, also under TF Serving's numeric version folders)
 *   through @tensorflow/tfjs-node, i.e. libtensorflow. tfjs-node is optional; when its
 *   binding is missing a SavedModel cannot be served and its load says why.
 * - portable: a TF.js graph model (`model.json` + weight shards) through @tensorflow/tfjs on
 *   the WASM backend, which needs nothing beyond the npm packages.
 * Each model runs in its own worker thread.
 */
import { existsSync, readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { requirePackage } from '../../../cli/optional-package.js';
import type { Backend, LoadContext, LoadSpec, ModelInstance } from '../../backend/backend.js';
import { type ParameterReader, applyParameters, listParameter } from '../../backend/backend-parameters.js';
import { TfInstance } from './tf-instance.js';
import type { TfPath, WorkerSettings } from './tf-messages.js';
import { TFJS_NODE } from './tf-native.js';

export const SAVED_MODEL_FILE = 'saved_model.pb';
export const TFJS_MODEL_FILE = 'model.json';

/** V2 `platform` of each path (Triton's name for SavedModels). */
export const PLATFORMS: Readonly<Record<TfPath, string>> = { native: 'tensorflow_savedmodel', portable: 'tensorflow_tfjs' };

const require = createRequire(import.meta.url);

export type NativeStatus = { readonly available: true; readonly binding: string } | { readonly available: false; readonly reason: string };

/** Whether tfjs-node and its compiled binding are installed (the binding is what often is not). */
export function nativeStatus(): NativeStatus {
  let pkg: string;
  try {
    pkg = require.resolve(`${TFJS_NODE}/package.json`);
  } catch {
    return { available: false, reason: `${TFJS_NODE} is not installed (an optional peer dependency: npm install ${TFJS_NODE})` };
  }
  const lib = path.join(path.dirname(pkg), 'lib');
  const dirs = existsSync(lib) ? readdirSync(lib).filter((d) => d.startsWith('napi-v')) : [];
  for (const d of dirs) {
    const binding = path.join(lib, d, 'tfjs_binding.node');
    if (existsSync(binding)) return { available: true, binding };
  }
  return {
    available: false,
    reason: `${TFJS_NODE} is installed without its native binding (its installer could not download libtensorflow); run scripts/build-tfjs-node.sh`,
  };
}

function wasmDir(): string {
  return path.join(path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm/package.json')), 'dist');
}

async function isTfjsModel(file: string): Promise<boolean> {
  try {
    const json = JSON.parse(await readFile(file, 'utf8')) as { modelTopology?: unknown };
    return typeof json === 'object' && json !== null && json.modelTopology !== undefined;
  } catch {
    return false;
  }
}

/** A model's options: its config.pbtxt parameters (the backend has no server flags of its own). */
export interface TfOptions {
  /** SavedModel MetaGraph tags (`saved_model_tags`, comma-separated). */
  readonly tags: readonly string[];
}

const PARAMETERS: Readonly<Record<string, ParameterReader<TfOptions>>> = {
  saved_model_tags: (v, o) => ({ ...o, tags: listParameter(v) }),
};

export const tensorflowBackend: Backend<undefined, TfOptions> = {
  name: 'tensorflow',
  aliases: ['tensorflow_savedmodel', 'tensorflow_tfjs', 'tfjs'],
  flags: [],
  // TF Serving's assets.extra warm-up records: SavedModels carry them; a TF.js graph model
  // converted with its assets may too, and runs them the same way.
  tfServingWarmup: true,
  settings: () => undefined,
  modelOptions: (_settings, parameters) => applyParameters('tensorflow', { tags: ['serve'] }, parameters, PARAMETERS),

  prepareProcess(): void {
    // libtensorflow's C++ info logs go straight to stderr; keep warnings and errors only. It
    // reads the level with getenv() on first use, so it is set here, once, before any worker
    // thread exists, and an operator's own value wins.
    process.env['TF_CPP_MIN_LOG_LEVEL'] ??= '1';
  },

  async detect(dir: string, names: readonly string[]): Promise<string | undefined> {
    if (names.includes(SAVED_MODEL_FILE)) return path.join(dir, SAVED_MODEL_FILE);
    if (names.includes(TFJS_MODEL_FILE) && (await isTfjsModel(path.join(dir, TFJS_MODEL_FILE)))) {
      return path.join(dir, TFJS_MODEL_FILE);
    }
    return undefined;
  },

  async load(spec: LoadSpec, options: TfOptions, context: LoadContext): Promise<ModelInstance> {
    const isSavedModel = path.basename(spec.file) === SAVED_MODEL_FILE;
    const where = { model: spec.modelName, version: spec.version, file: spec.file };
    let tfPath: TfPath;
    let why: string;
    if (isSavedModel) {
      const native = nativeStatus();
      if (!native.available) {
        throw new Error(
          `a SavedModel needs the native TensorFlow path, which is unavailable: ${native.reason}. ` +
            'Alternatively export the model as a TF.js graph model (model.json), which the portable path serves',
        );
      }
      tfPath = 'native';
      why = `SavedModel, served by libtensorflow through ${TFJS_NODE} (${native.binding})`;
    } else {
      tfPath = 'portable';
      // Optional peer dependencies, imported in the model's worker: asked for here, by name.
      for (const name of ['@tensorflow/tfjs', '@tensorflow/tfjs-backend-wasm']) requirePackage(name, 'a TF.js graph model (the tensorflow backend)');
      const native = nativeStatus();
      why = `TF.js graph model, served by @tensorflow/tfjs on its %BACKEND% backend${native.available ? '' : ` (native path unavailable: ${native.reason})`}`;
    }
    const settings: WorkerSettings = {
      path: tfPath,
      modelPath: isSavedModel ? path.dirname(spec.file) : spec.file,
      tags: options.tags,
      wasmDir: tfPath === 'portable' ? wasmDir() : '', // the native path loads no WASM
      threads: context.threads,
    };
    const { instance, backend } = await TfInstance.create(settings, PLATFORMS[tfPath], spec.modelName, context.logger);
    context.logger.info(
      { ...where, path: tfPath, tfjsBackend: backend, signatures: instance.signatures.map((s) => s.name) },
      `tensorflow model ${spec.modelName} loaded on the ${tfPath} path: ${why.replace('%BACKEND%', backend)}`,
    );
    return instance;
  },
};

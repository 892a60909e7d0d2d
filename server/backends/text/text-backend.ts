/**
 * The `text` backend: Hugging Face / sentence-transformers folders (an ONNX graph beside
 * tokenizer.json) served as text models, tokenized and pooled in process
 * (text-instance.ts). The graph itself runs in an `onnx` backend instance, so this backend
 * takes the onnx backend's flags and config.pbtxt parameters as its own and declares no
 * flags of its own (they are the onnx backend's, in the shared CLI table once).
 *
 * Registered before `onnx`: a folder with tokenizer.json is a text model, not a bare graph.
 */
import path from 'node:path';
import type { Backend, LoadContext, LoadSpec, ModelInstance } from '../../backend/backend.js';
import { onnxBackend } from '../onnx/onnx-backend.js';
import type { OnnxOptions, OnnxSettings } from '../onnx/onnx-options.js';
import { ONNX_PATHS, TOKENIZER_FILE } from './text-layout.js';
import { fileExists } from '../../file-exists.js';

export const textBackend: Backend<OnnxSettings, OnnxOptions> = {
  name: 'text',
  aliases: ['huggingface', 'sentence_transformers'],
  flags: [],
  flagsOf: onnxBackend.name,
  instanceGroups: onnxBackend.instanceGroups,
  settings: (flags) => onnxBackend.settings(flags),
  modelOptions: (settings, parameters) => onnxBackend.modelOptions(settings, parameters),

  async detect(dir: string, files: readonly string[]): Promise<string | undefined> {
    if (!files.includes(TOKENIZER_FILE)) return undefined;
    for (const rel of ONNX_PATHS) {
      const file = path.join(dir, rel);
      if (await fileExists(file)) return file;
    }
    return undefined;
  },

  async load(spec: LoadSpec, options: OnnxOptions, context: LoadContext): Promise<ModelInstance> {
    // A batch runs without its requests' contexts (their `dimensions`) and stacks inputs a text
    // model reads as ragged: refused until batching groups text requests itself.
    if (spec.config?.dynamicBatching !== undefined) {
      throw new Error(`model ${spec.modelName}: config.pbtxt dynamic_batching is not supported for text models; each request is padded and run on its own`);
    }
    // Imported at the first load: a server without text models never loads the tokenizer library.
    const [{ readTextModel }, { TextInstance }] = await Promise.all([import('./text-model-files.js'), import('./text-instance.js')]);
    // The folder is read before the session starts: a bad folder fails fast and costs no thread.
    const files = await readTextModel(spec.dir).catch((err: unknown) => {
      throw new Error(`model ${spec.modelName}: ${(err as Error).message}`, { cause: err });
    });
    const inner = await onnxBackend.load(spec, options, context);
    try {
      return new TextInstance(files, inner);
    } catch (err) {
      await inner.unload();
      throw new Error(`model ${spec.modelName}: ${(err as Error).message}`, { cause: err });
    }
  },
};

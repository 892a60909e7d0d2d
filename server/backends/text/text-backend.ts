/**
 * The `text` backend: Hugging Face / sentence-transformers folders (an ONNX graph beside
 * tokenizer.json) served as text models, tokenized in a worker thread and pooled in process
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

export interface TextBackendOptions {
  /**
   * A test's hold on every tokenizer worker this backend starts (test/helpers/tokenizer-gate.ts):
   * tokenization waits in the worker thread while the test holds it. Never set in production.
   */
  readonly tokenizerHold?: SharedArrayBuffer | undefined;
}

export function createTextBackend(opts: TextBackendOptions = {}): Backend<OnnxSettings, OnnxOptions> {
  return {
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
      // Imported at the first load: a server without text models never loads these modules.
      const [{ readTextModel }, { TextInstance, CHUNK_ROWS }, { TokenizerSession }] = await Promise.all([
        import('./text-model-files.js'),
        import('./text-instance.js'),
        import('./tokenizer-session.js'),
      ]);
      const fail = (err: unknown): never => {
        throw new Error(`model ${spec.modelName}: ${(err as Error).message}`, { cause: err });
      };
      // The folder is read before the workers start: a bad folder fails fast and costs no thread.
      const files = await readTextModel(spec.dir).catch(fail);
      // The batcher stacks requests along their rows: an embedding request's texts stack, a
      // rerank request's one query with its documents does not.
      if (files.kind === 'rerank' && spec.config?.dynamicBatching !== undefined) {
        fail(new Error('config.pbtxt dynamic_batching is not supported for rerank models (each query is scored with its own documents); embedding models batch'));
      }
      const tokenizer = await TokenizerSession.start(files.tokenizer, spec, context, { chunkRows: CHUNK_ROWS, hold: opts.tokenizerHold }).catch(fail);
      let inner: ModelInstance;
      try {
        inner = await onnxBackend.load(spec, options, context);
      } catch (err) {
        await tokenizer.unload();
        throw err;
      }
      try {
        return new TextInstance(files, inner, tokenizer);
      } catch (err) {
        await Promise.all([inner.unload(), tokenizer.unload()]);
        return fail(err);
      }
    },
  };
}

export const textBackend: Backend<OnnxSettings, OnnxOptions> = createTextBackend();

/** Messages between the main thread and a custom model's worker thread (model-worker.ts). */
import type { WireError } from '../../../protocols/errors.js';
import type { Parameters, Tensor, TensorSpec } from '../../../protocols/tensor.js';
import type { InferContext } from '../../backend.js';
import type { ModelFactoryOptions } from './model.js';

export interface WorkerInit {
  readonly file: string;
  readonly options: ModelFactoryOptions;
  readonly logLevel: string;
}

export type FromWorker =
  | { readonly type: 'loaded'; readonly inputs: TensorSpec[]; readonly outputs: TensorSpec[] }
  | { readonly type: 'load-failed'; readonly error: WireError }
  | { readonly type: 'result'; readonly id: number; readonly outputs: Tensor[]; readonly responseHeaders: Record<string, string>; readonly parameters: Parameters | undefined }
  | { readonly type: 'failed'; readonly id: number; readonly error: WireError }
  | { readonly type: 'explained'; readonly id: number; readonly document: unknown }
  | { readonly type: 'unloaded' };

export type ToWorker =
  | { readonly type: 'infer'; readonly id: number; readonly inputs: readonly Tensor[]; readonly outputNames: readonly string[]; readonly context: Omit<InferContext, 'responseHeaders'> }
  | { readonly type: 'explain'; readonly id: number; readonly inputs: readonly Tensor[]; readonly context: Omit<InferContext, 'responseHeaders'> }
  | { readonly type: 'unload' };

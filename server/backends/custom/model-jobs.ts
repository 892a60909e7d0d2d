/**
 * What a custom model's worker thread (model-worker.ts) and its main-thread instance
 * (worker-model.ts) exchange, inside the generic envelope (server/workers/worker-messages.ts: one
 * message shape, one WireError for failures, cancellation): the load report, one job per
 * hook call, and what each answers.
 */
import type { Parameters, Tensor, TensorSpec } from '../../../protocols/tensor.js';
import type { InferContext } from '../../backend/backend.js';
import type { ModelFactoryOptions } from './model.js';

/** workerData of a model worker. */
export interface ModelWorkerInit {
  readonly file: string;
  readonly options: ModelFactoryOptions;
  readonly logLevel: string;
}

/** What the main thread learns once the model has loaded. */
export interface ModelLoaded {
  readonly inputs: TensorSpec[];
  readonly outputs: TensorSpec[];
  /** The model asks for the predictor health check: the main thread then polls `health` jobs. */
  readonly healthCheck: boolean;
}

/** The request's facts the hooks see; the response headers come back in the answer. */
export type JobContext = Pick<InferContext, 'id' | 'parameters' | 'headers'>;

export type ModelJob =
  | { readonly kind: 'infer'; readonly inputs: readonly Tensor[]; readonly outputNames: readonly string[]; readonly context: JobContext }
  | { readonly kind: 'explain'; readonly inputs: readonly Tensor[]; readonly context: JobContext }
  | { readonly kind: 'health' };

export type ModelAnswer =
  | { readonly kind: 'infer'; readonly outputs: Tensor[]; readonly responseHeaders: Record<string, string>; readonly parameters: Parameters | undefined }
  | { readonly kind: 'explain'; readonly document: unknown }
  | { readonly kind: 'health'; readonly healthy: boolean };

/**
 * kserve-ts's public API (the package entry `kserve-ts`): KServe's Python SDK names in
 * TypeScript casing. Write a Model subclass, serve it with ModelServer or
 * `kserve-ts serve --model_module`. See docs/custom-models.md.
 *
 * The face only: the Model class and the request types are the custom backend's contract
 * with user code, so they live with the backend that serves them (server/backends/custom/);
 * this entry names them, the face imports the backend and never the reverse.
 */
export { Model } from '../backends/custom/model.js';
export type { Awaitable, ModelClass, ModelFactory, ModelFactoryOptions, ModelOptions } from '../backends/custom/model.js';
export type { PredictorConfig, PredictorProtocol } from '../predictor-client/predictor-config.js';
export type { ClientSignal } from '../client-signal.js';
export { InferRequest, InferResponse } from '../backends/custom/infer-request.js';
export type { RequestHeaders, ResponseHeaders } from '../backends/custom/infer-request.js';
export { InferInput, InferOutput, toTensorData } from '../backends/custom/infer-tensor.js';
export type { TensorValues } from '../backends/custom/infer-tensor.js';
export { InferenceError, InvalidInput, ModelNotFound, ModelNotReady, NotImplemented, ServerNotReady } from '../backends/custom/sdk-errors.js';
export { ModelServer } from './model-server.js';
export type { ModelServerOptions } from './model-server.js';
export type { ModelRepository } from '../repository/model-repository.js';
export { SDK_PLATFORM } from '../backends/custom/model-adapter.js';
export { DATATYPES } from '../../protocols/datatypes.js';
export type { Datatype, NumericArray, TensorData } from '../../protocols/datatypes.js';
export type { Parameters, ParameterValue, Tensor, TensorSpec } from '../../protocols/tensor.js';
export { KServeError } from '../../protocols/errors.js';

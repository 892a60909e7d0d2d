/**
 * KServe's error classes (kserve/errors.py) for user code, as catalogue errors
 * (protocols/errors.ts): each carries its catalogue kind, so REST and gRPC map it in their
 * one place (InvalidInput → 400 / INVALID_ARGUMENT, ModelNotFound → 404 / NOT_FOUND,
 * ModelNotReady → 503 / UNAVAILABLE, InferenceError → 500 / INTERNAL). Anything else a
 * model throws becomes a 500 naming the model (model-adapter.ts); stacks never reach a client.
 */
import { KServeError } from '../../../protocols/errors.js';

export class InvalidInput extends KServeError {
  constructor(reason: string) {
    super('InvalidInput', reason);
    this.name = 'InvalidInput';
  }
}

export class ModelNotFound extends KServeError {
  constructor(modelName: string) {
    super('ModelNotFound', `Model with name ${modelName} does not exist.`);
    this.name = 'ModelNotFound';
  }
}

export class ModelNotReady extends KServeError {
  constructor(modelName: string, detail?: string) {
    super('ModelNotReady', `Model with name ${modelName} is not ready.${detail ? ` ${detail}` : ''}`);
    this.name = 'ModelNotReady';
  }
}

export class InferenceError extends KServeError {
  constructor(reason: string) {
    super('InferenceError', reason);
    this.name = 'InferenceError';
  }
}

export class NotImplemented extends KServeError {
  constructor(reason: string) {
    super('NotImplemented', reason);
    this.name = 'NotImplemented';
  }
}

/** KServe's ServerNotReady, for completeness of the class list. */
export class ServerNotReady extends KServeError {
  constructor() {
    super('ServerNotReady', 'Server is not ready.');
    this.name = 'ServerNotReady';
  }
}

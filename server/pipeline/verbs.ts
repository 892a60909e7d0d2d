/**
 * What a request asks a model version to do, in one place: `infer` (V1 predict, V2 infer,
 * gRPC ModelInfer) and `explain` (V1 explain). A verb checks before anything is decoded
 * whether the version serves it (`admit`), then runs the decoded request against it; the
 * pipeline times it as the verb's stage. A future verb (e.g. streaming generation) is one
 * more value here whose `run` returns an AsyncIterable (see Pipeline.run).
 */
import { errors } from '../../protocols/errors.js';
import { SIGNATURE_PARAMETER, selectSignature } from '../../protocols/signature.js';
import type { InferRequest, InferResponse, ModelView, Parameters, SignatureDef } from '../../protocols/tensor.js';
import type { InferContext } from '../backend/backend.js';
import type { Stage } from '../metrics.js';
import type { ServedVersion } from '../repository/model-repository.js';
import { validateRequest } from '../validate-request.js';

export interface Verb<R> {
  /** The latency stage (metrics, latency log) the verb's run is timed as. */
  readonly stage: Extract<Stage, 'predict' | 'explain'>;
  /** Throws (a catalogue error) when the version does not serve this verb; called before decoding. */
  admit(served: ServedVersion, model: ModelView): void;
  /**
   * Validates and runs the request. The request's input buffers may be detached by the
   * backend: the caller must not read them afterwards. `id` is the request's id (its own or
   * one made for it).
   */
  run(served: ServedVersion, model: ModelView, request: InferRequest, id: string, context: InferContext): Promise<R>;
}

/**
 * The inputs and outputs a request runs against: those of the signature its `signature_name`
 * parameter selects, for models with named signatures; the model's own otherwise.
 */
function signatureOf(model: ModelView, parameters: Parameters | undefined): { io: Pick<SignatureDef, 'inputs' | 'outputs'>; name: string | undefined } {
  if (model.signatures === undefined) return { io: model, name: undefined };
  const sig = selectSignature(model.signatures, parameters?.[SIGNATURE_PARAMETER]);
  return { io: sig, name: sig.name };
}

function validate(served: ServedVersion, model: ModelView, request: InferRequest, io: Pick<SignatureDef, 'inputs' | 'outputs'>): void {
  if (served.instance.validatesOwnInputs !== true) validateRequest(model.name, request, io.inputs, io.outputs, served.config?.maxBatchSize ?? 0);
}

/**
 * Resolves the request's signature (the one place it is chosen), validates the request
 * against it and runs it, handing the backend the resolved name. Outputs come back filtered
 * and ordered as requested.
 */
export const infer: Verb<InferResponse> = {
  stage: 'predict',
  admit() {},
  async run(served, model, request, id, context) {
    const sig = signatureOf(model, request.parameters);
    validate(served, model, request, sig.io);
    // An empty `outputs` list asks for every output, as in the anchor (`if request_outputs:`).
    const requested = request.outputs !== undefined && request.outputs.length > 0 ? request.outputs : sig.io.outputs;
    const outputs = await served.instance.infer(
      request.inputs,
      requested.map((o) => o.name),
      sig.name,
      context,
    );
    const response = { id, modelName: model.name, modelVersion: served.version, outputs };
    return context.responseParameters === undefined ? response : { ...response, parameters: context.responseParameters };
  },
};

/** Explains with the version's `explain` (SDK models); the result is the response document. */
export const explain: Verb<unknown> = {
  stage: 'explain',
  admit(served, model) {
    // Answered before the body is read, as the anchor answers whatever the body holds.
    if (served.instance.explain === undefined) throw errors.notImplemented(`Model ${model.name} does not support explain`);
  },
  async run(served, model, request, _id, context) {
    const instance = served.instance;
    if (instance.explain === undefined) throw errors.notImplemented(`Model ${model.name} does not support explain`);
    validate(served, model, request, model);
    return instance.explain(request.inputs, context);
  },
};

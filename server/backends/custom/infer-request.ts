/**
 * InferRequest and InferResponse, as in KServe's Python SDK (`kserve.InferRequest`,
 * `kserve.InferResponse`): what a Model's hooks receive and return, whatever the protocol
 * the client spoke (V1 and V2 REST, gRPC all decode into the neutral types first).
 */
import type { Parameters, RequestedOutput, Tensor } from '../../../protocols/tensor.js';
import type { ClientSignal } from '../../client-signal.js';
import type { InferInput, InferOutput } from './infer-tensor.js';

/** Request headers (REST) or metadata (gRPC): lower-case names, one value each. */
export type RequestHeaders = Readonly<Record<string, string>>;
/** Headers a hook adds to the response (REST headers; gRPC initial metadata). */
export type ResponseHeaders = Record<string, string>;

export class InferRequest {
  readonly modelName: string;
  id: string | undefined;
  inputs: InferInput[];
  parameters: Parameters | undefined;
  /** Outputs the client asked for (names, in order); empty = all. The server filters the response to them. */
  requestOutputs: RequestedOutput[];
  /**
   * Whether the client of this request has gone away (`signal.aborted`), for hooks that wait
   * on I/O and can stop early; the default transformer `predict` aborts its forwarded call
   * with it. Set by the server on the request `preprocess` receives, and carried onto the
   * request it returns if that has none, in worker mode (--model_module_worker) as inline.
   * Undefined for requests built by code.
   */
  signal: ClientSignal | undefined;

  constructor(
    modelName: string,
    inputs: InferInput[],
    opts: { id?: string | undefined; parameters?: Parameters | undefined; requestOutputs?: readonly RequestedOutput[] | undefined; signal?: ClientSignal | undefined } = {},
  ) {
    this.modelName = modelName;
    this.inputs = inputs;
    this.id = opts.id;
    this.parameters = opts.parameters;
    this.requestOutputs = [...(opts.requestOutputs ?? [])];
    this.signal = opts.signal;
  }

  /** The input named `name`, or undefined (`InferRequest.get_input_by_name`). */
  getInput(name: string): InferInput | undefined {
    return this.inputs.find((i) => i.name === name);
  }
}

export class InferResponse {
  readonly modelName: string;
  id: string | undefined;
  outputs: InferOutput[];
  parameters: Parameters | undefined;

  constructor(modelName: string, outputs: InferOutput[], opts: { id?: string | undefined; parameters?: Parameters | undefined } = {}) {
    this.modelName = modelName;
    this.outputs = outputs;
    this.id = opts.id;
    this.parameters = opts.parameters;
  }

  /** The output named `name`, or undefined (`InferResponse.get_output_by_name`). */
  getOutput(name: string): InferOutput | undefined {
    return this.outputs.find((o) => o.name === name);
  }

  /** Neutral tensors of the outputs, for the transports. */
  tensors(): Tensor[] {
    return this.outputs.map((o) => o.toTensor());
  }
}

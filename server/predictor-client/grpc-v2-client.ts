/**
 * V2 gRPC to the predictor (`--predictor_protocol grpc-v2`): ModelInfer on one reused
 * grpc-js channel (TLS with --predictor_use_ssl, trusting grpc-js's roots: its bundled CAs,
 * or the PEM file in GRPC_DEFAULT_SSL_ROOTS_FILE_PATH, since grpc-js does not read Node's
 * NODE_EXTRA_CA_CERTS, which the REST clients trust). Tensors go through the gRPC codec of
 * protocols/grpc: a request's inputs are encoded as that codec encodes outputs, and the
 * answer's outputs decoded as it decodes inputs (the tensor messages have the same fields),
 * so both directions keep its checks. KServe's metadata goes with the forwarded headers:
 * `request_type` / `response_type` = `grpc_v2`. Readiness: ServerReady.
 */
import * as grpc from '@grpc/grpc-js';
import { errors } from '../../protocols/errors.js';
import { decodeGrpcInferRequest } from '../../protocols/grpc/infer-request.js';
import { encodeGrpcInferResponse } from '../../protocols/grpc/infer-response.js';
import type { ModelInferRequestMessage, ModelInferResponseMessage } from '../../protocols/grpc/messages.js';
import { encodeGrpcParameters } from '../../protocols/grpc/parameters.js';
import { INFERENCE_SERVICE, loadProtocolDefinition } from '../../protocols/grpc/proto.js';
import { decodeModelInferResponse } from '../../protocols/grpc/wire/decode-infer.js';
import { encodeModelInferRequest } from '../../protocols/grpc/wire/encode-infer.js';
import { AttemptControl } from './attempt-control.js';
import { returnedHeaders } from './forward-headers.js';
import type { ForwardRequest, ForwardResponse, PredictorClient } from './predictor-client.js';
import { type PredictorConfig, hostWithPort } from './predictor-config.js';
import { grpcRefusal } from './predictor-status.js';
import { backoff } from './retry-policy.js';

type Unary<Req, Res> = (req: Req, metadata: grpc.Metadata, options: grpc.CallOptions, cb: (err: grpc.ServiceError | null, res?: Res) => void) => grpc.ClientUnaryCall;
interface InferenceStub extends grpc.Client {
  ServerReady: Unary<Record<string, never>, { ready: boolean }>;
}
type StubClass = new (target: string, creds: grpc.ChannelCredentials, options: grpc.ClientOptions) => InferenceStub;

/** ModelInfer goes through the hand-written wire codec (protocols/grpc/wire), not proto-loader's. */
const MODEL_INFER = `/${INFERENCE_SERVICE}/ModelInfer`;

/** grpc-js receives 4 MiB by default; a predictor's answer may be larger. */
const MAX_MESSAGE_BYTES = 256 * 1024 * 1024;

function requestMessage(request: ForwardRequest): ModelInferRequestMessage {
  const encoded = encodeGrpcInferResponse({ modelName: request.modelName, outputs: request.inputs }, false);
  return {
    model_name: request.modelName,
    id: request.id ?? '',
    parameters: encodeGrpcParameters(request.parameters),
    inputs: encoded.outputs,
    outputs: request.outputs.map((o) => ({ name: o.name, parameters: encodeGrpcParameters(o.parameters) })),
    raw_input_contents: encoded.raw_output_contents,
  };
}

function metadataHeaders(md: grpc.Metadata): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(md.getMap())) if (typeof v === 'string') out[k] = v;
  return out;
}

export function grpcV2Client(config: Required<PredictorConfig>): PredictorClient {
  const pkg = grpc.loadPackageDefinition(loadProtocolDefinition()) as unknown as { inference: { GRPCInferenceService: StubClass } };
  const credentials = config.useSsl ? grpc.credentials.createSsl() : grpc.credentials.createInsecure();
  const stub = new pkg.inference.GRPCInferenceService(hostWithPort(config.host, config.useSsl), credentials, {
    'grpc.max_receive_message_length': MAX_MESSAGE_BYTES,
    'grpc.max_send_message_length': MAX_MESSAGE_BYTES,
  });
  const target = `grpc${config.useSsl ? 's' : ''}://${config.host}`;
  const timeoutMs = config.requestTimeoutSeconds * 1000;

  const once = (message: ModelInferRequestMessage, metadata: grpc.Metadata, control: AttemptControl, headers: Record<string, string>) =>
    new Promise<ModelInferResponseMessage>((resolve, reject) => {
      const call = stub.makeUnaryRequest(MODEL_INFER, encodeModelInferRequest, decodeModelInferResponse, message, metadata, { deadline: Date.now() + timeoutMs }, (err, res) =>
        err ? reject(err) : resolve(res as ModelInferResponseMessage),
      );
      call.on('metadata', (md: grpc.Metadata) => Object.assign(headers, returnedHeaders(metadataHeaders(md))));
      control.signal.addEventListener('abort', () => call.cancel(), { once: true });
    });

  return {
    async infer(request: ForwardRequest): Promise<ForwardResponse> {
      const message = requestMessage(request);
      const metadata = new grpc.Metadata();
      for (const [k, v] of Object.entries(request.headers)) metadata.set(k, v);
      metadata.set('request_type', 'grpc_v2');
      metadata.set('response_type', 'grpc_v2');
      const attempts = 1 + config.retries;
      for (let attempt = 1; ; attempt++) {
        const control = new AttemptControl(timeoutMs, request.signal);
        const headers: Record<string, string> = {};
        let res: ModelInferResponseMessage;
        try {
          res = await once(message, metadata, control, headers);
        } catch (e) {
          const err = e as grpc.ServiceError;
          if (control.why === 'cancelled') throw errors.cancelled(request.modelName);
          if (control.why === 'timeout' || err.code === grpc.status.DEADLINE_EXCEEDED) throw errors.predictorTimeout(target, config.requestTimeoutSeconds);
          if (err.code === grpc.status.UNAVAILABLE) {
            if (attempt < attempts) {
              await backoff(attempt, undefined);
              continue;
            }
            // grpc-js says UNAVAILABLE both for a channel it could not connect and for a
            // server's own "not ready"; its details tell them apart for the reader.
            throw errors.predictorUnreachable(target, err.details || 'UNAVAILABLE', attempt);
          }
          throw grpcRefusal(target, err.code, err.details);
        } finally {
          control.dispose();
        }
        try {
          const decoded = decodeGrpcInferRequest({
            model_name: res.model_name,
            id: res.id,
            parameters: res.parameters,
            inputs: res.outputs,
            outputs: [],
            raw_input_contents: res.raw_output_contents,
          });
          return { modelName: res.model_name || request.modelName, id: res.id || undefined, parameters: decoded.request.parameters, outputs: [...decoded.request.inputs], headers };
        } catch (err) {
          throw errors.predictorError(target, `malformed answer: ${(err as Error).message}`);
        }
      }
    },
    ready: () =>
      new Promise<boolean>((resolve) => {
        stub.ServerReady({}, new grpc.Metadata(), { deadline: Date.now() + timeoutMs }, (err, res) => resolve(err === null && res?.ready === true));
      }),
    close: async () => stub.close(),
  };
}

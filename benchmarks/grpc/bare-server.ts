/**
 * The gRPC ceilings (issue 34): a server answering ModelInfer with no model behind it, so
 * each gRPC row can say how far it is from what Node allows for the same traffic. Every
 * call's request is read whole and dropped; the answer is a fixed, pre-encoded
 * ModelInferResponse sized like the model's (1×1000 FP32 raw for a request of 64 KiB or
 * more, as conv_small answers a 588 KiB image; 1×8 otherwise, as mlp_64x8 answers 256 B),
 * with grpc-status 0 in the trailers.
 *
 *   node --import tsx benchmarks/grpc/bare-server.ts http2|grpc-js GRPC_PORT HTTP_PORT
 *
 * - http2: node:http2 alone, the stream's chunks collected and the answer written.
 * - grpc-js: grpc-js's server with a pass-through (Buffer) method, no codec, no model.
 * Both advertise the receive windows and frame size kserve-ts does (server/grpc/flow-control.ts),
 * so what separates them from kserve-ts is the message path, not flow control. HTTP_PORT
 * answers 200 on `/` once the gRPC port is bound (the suite's readiness probe).
 */
import { createServer as createHttpServer } from 'node:http';
import http2 from 'node:http2';
import * as grpc from '@grpc/grpc-js';
import type { ModelInferResponseMessage } from '../../protocols/grpc/messages.js';
import { INFERENCE_SERVICE } from '../../protocols/grpc/proto.js';
import { encodeModelInferResponse } from '../../protocols/grpc/wire/encode-infer.js';
import { CONNECTION_WINDOW, MAX_FRAME_SIZE, STREAM_WINDOW, newHttp2Servers, widenReceiveWindows, widenSessionWindows } from '../../server/grpc/flow-control.js';

const LARGE_REQUEST = 64 * 1024;
const MAX_MESSAGE = 64 * 1024 * 1024;

function response(elements: number): Buffer {
  const message: ModelInferResponseMessage = {
    model_name: 'bare',
    model_version: '1',
    id: '',
    parameters: {},
    outputs: [{ name: 'output', datatype: 'FP32', shape: [1, elements], parameters: {} }],
    raw_output_contents: [new Uint8Array(elements * 4)],
  };
  return encodeModelInferResponse(message);
}

const answers = { large: response(1000), small: response(8) };
const answerFor = (requestBytes: number): Buffer => (requestBytes >= LARGE_REQUEST ? answers.large : answers.small);

function framed(message: Buffer): Buffer {
  const out = Buffer.alloc(5 + message.byteLength);
  out.writeUInt32BE(message.byteLength, 1);
  message.copy(out, 5);
  return out;
}
const framedAnswers = { large: framed(answers.large), small: framed(answers.small) };

async function bareHttp2(port: number): Promise<void> {
  const server = http2.createServer({ settings: { initialWindowSize: STREAM_WINDOW, maxFrameSize: MAX_FRAME_SIZE } });
  server.on('session', (s) => s.setLocalWindowSize(CONNECTION_WINDOW));
  server.on('stream', (stream) => {
    let bytes = 0;
    stream.on('data', (c: Buffer) => (bytes += c.byteLength));
    stream.on('end', () => {
      stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
      stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0', 'grpc-message': '' }));
      stream.end(bytes - 5 >= LARGE_REQUEST ? framedAnswers.large : framedAnswers.small);
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
}

async function bareGrpcJs(port: number): Promise<void> {
  const server = new grpc.Server({ 'grpc.max_receive_message_length': MAX_MESSAGE, 'grpc.max_send_message_length': MAX_MESSAGE });
  // The windows and frame size as kserve-ts sets them; grpc-js's own message assembly stays.
  widenReceiveWindows(server);
  const passThrough = (b: Buffer) => b;
  const definition: grpc.ServiceDefinition = {
    ModelInfer: {
      path: `/${INFERENCE_SERVICE}/ModelInfer`,
      requestStream: false,
      responseStream: false,
      requestSerialize: passThrough,
      requestDeserialize: passThrough,
      responseSerialize: passThrough,
      responseDeserialize: passThrough,
    },
  };
  server.addService(definition, {
    ModelInfer: (call: grpc.ServerUnaryCall<Buffer, Buffer>, callback: grpc.sendUnaryData<Buffer>) => callback(null, answerFor(call.request.byteLength)),
  });
  await new Promise<void>((resolve, reject) => server.bindAsync(`127.0.0.1:${port}`, grpc.ServerCredentials.createInsecure(), (err) => (err ? reject(err) : resolve())));
  for (const h2 of newHttp2Servers(server)) widenSessionWindows(h2);
}

const [kind, grpcPort, httpPort] = process.argv.slice(2);
const servers: Record<string, (port: number) => Promise<void>> = { http2: bareHttp2, 'grpc-js': bareGrpcJs };
const start = kind === undefined ? undefined : servers[kind];
if (start === undefined) throw new Error(`usage: bare-server.ts ${Object.keys(servers).join('|')} GRPC_PORT HTTP_PORT`);
await start(Number(grpcPort));
createHttpServer((_req, res) => res.end('ok')).listen(Number(httpPort), '127.0.0.1');
process.on('SIGTERM', () => process.exit(0));

// V2 gRPC inference: inference.GRPCInferenceService/ModelInfer with typed contents
// (fp32_contents), or with raw_input_contents when RAW=1.
//   scripts/k6.sh run -e GRPC_ADDR=127.0.0.1:8081 benchmarks/k6/grpc.js
//   scripts/k6.sh run -e GRPC_ADDR=127.0.0.1:8081 -e RAW=1 benchmarks/k6/grpc.js
// Environment: see lib.js. The proto is the server's own (protocols/grpc/grpc_predict_v2.proto),
// resolved relative to this script.
import grpc from 'k6/net/grpc';
import encoding from 'k6/encoding';
import { check } from 'k6';
import { GRPC_ADDR, INPUT, MODEL, SHAPE, options as scenarioOptions, sample } from './lib.js';

export const options = scenarioOptions('grpc_req_duration');

const client = new grpc.Client();
client.load(['../../protocols/grpc'], 'grpc_predict_v2.proto');

const values = sample();
const request =
  __ENV.RAW === '1'
    ? {
        model_name: MODEL,
        inputs: [{ name: INPUT, datatype: 'FP32', shape: SHAPE }],
        // bytes fields travel as base64 in k6's JSON mapping of protobuf.
        raw_input_contents: [encoding.b64encode(new Float32Array(values).buffer)],
      }
    : { model_name: MODEL, inputs: [{ name: INPUT, datatype: 'FP32', shape: SHAPE, contents: { fp32_contents: values } }] };

export default function () {
  // One connection per VU, opened on its first iteration and reused.
  if (__ITER === 0) client.connect(GRPC_ADDR, { plaintext: true });
  const res = client.invoke('inference.GRPCInferenceService/ModelInfer', request);
  check(res, {
    'status OK': (r) => r && r.status === grpc.StatusOK,
    'has outputs': (r) => r && r.message && r.message.outputs && r.message.outputs.length > 0,
  });
}

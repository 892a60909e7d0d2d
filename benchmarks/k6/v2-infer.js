// V2 REST inference, POST /v2/models/$MODEL/infer: a JSON body, or with BINARY=1 the binary
// tensor extension in both directions (a JSON header followed by the raw little-endian FP32
// input; binary outputs in the response).
//   scripts/k6.sh run -e BASE_URL=http://127.0.0.1:8080 benchmarks/k6/v2-infer.js
//   scripts/k6.sh run -e BASE_URL=http://127.0.0.1:8080 -e BINARY=1 benchmarks/k6/v2-infer.js
// Environment: see lib.js.
import http from 'k6/http';
import { check } from 'k6';
import { BASE_URL, INPUT, MODEL, SHAPE, options as scenarioOptions, sample } from './lib.js';

export const options = scenarioOptions('http_req_duration', { http_req_failed: ['rate<0.01'] });

const BINARY = __ENV.BINARY === '1';
const url = `${BASE_URL}/v2/models/${MODEL}/infer`;

function jsonRequest() {
  const body = JSON.stringify({ inputs: [{ name: INPUT, shape: SHAPE, datatype: 'FP32', data: sample() }] });
  return { body, params: { headers: { 'content-type': 'application/json' } } };
}

function binaryRequest() {
  const values = new Float32Array(sample());
  const header = JSON.stringify({
    inputs: [{ name: INPUT, shape: SHAPE, datatype: 'FP32', parameters: { binary_data_size: values.byteLength } }],
    parameters: { binary_data_output: true },
  });
  // The header is ASCII, so one char is one byte.
  const body = new Uint8Array(header.length + values.byteLength);
  for (let i = 0; i < header.length; i++) body[i] = header.charCodeAt(i);
  body.set(new Uint8Array(values.buffer), header.length);
  return {
    body: body.buffer,
    params: {
      headers: { 'content-type': 'application/octet-stream', 'inference-header-content-length': String(header.length) },
      responseType: 'binary',
    },
  };
}

const request = BINARY ? binaryRequest() : jsonRequest();

export default function () {
  const res = http.post(url, request.body, request.params);
  check(res, {
    'status 200': (r) => r.status === 200,
    'outputs in the answer': (r) => r.status === 200 && (BINARY ? Number(r.headers['Inference-Header-Content-Length']) > 0 : Array.isArray(r.json('outputs'))),
  });
}

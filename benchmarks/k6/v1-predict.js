// V1 (KServe's TF Serving-style protocol) inference, POST /v1/models/$MODEL:predict with
// `instances`, one row per entry of SHAPE's first dimension.
//   k6 run -e BASE_URL=http://127.0.0.1:8080 benchmarks/k6/v1-predict.js
// Environment: see lib.js.
import http from 'k6/http';
import { check } from 'k6';
import { BASE_URL, MODEL, SHAPE, instances, options as scenarioOptions } from './lib.js';

export const options = scenarioOptions('http_req_duration', { http_req_failed: ['rate<0.01'] });

const url = `${BASE_URL}/v1/models/${MODEL}:predict`;
const body = JSON.stringify({ instances: instances() });
const params = { headers: { 'content-type': 'application/json' } };

export default function () {
  const res = http.post(url, body, params);
  check(res, {
    'status 200': (r) => r.status === 200,
    'one prediction per instance': (r) => r.status === 200 && Array.isArray(r.json('predictions')) && r.json('predictions').length === SHAPE[0],
  });
}

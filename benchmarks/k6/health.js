// Health and metadata probes, as a load balancer and Kubernetes would send them:
// GET /v2/health/live, /v2/health/ready, /v2/models/$MODEL/ready in turn.
//   scripts/k6.sh run -e BASE_URL=http://127.0.0.1:8080 -e RATE=1000 benchmarks/k6/health.js
// Environment: see lib.js (P95_MS defaults to 50 there; these routes do no model work).
import http from 'k6/http';
import { check } from 'k6';
import { BASE_URL, MODEL, options as scenarioOptions } from './lib.js';

export const options = scenarioOptions('http_req_duration', { http_req_failed: ['rate<0.01'] });

const paths = ['/v2/health/live', '/v2/health/ready', `/v2/models/${MODEL}/ready`];

export default function () {
  const path = paths[__ITER % paths.length];
  const res = http.get(`${BASE_URL}${path}`, { tags: { name: path } });
  check(res, { 'status 200': (r) => r.status === 200 });
}

// Shared pieces of the k6 scripts: target, model, payload and the MLServer-style scenarios.
//
// Environment (k6 run -e NAME=value):
//   BASE_URL   REST address              (default http://127.0.0.1:8080)
//   GRPC_ADDR  gRPC address              (default 127.0.0.1:8081)
//   MODEL      model name                (default mlp)
//   INPUT      input tensor name         (default input)
//   SHAPE      FP32 input shape          (default 1,64: the mlp_64x8 fixture)
//   SCENARIO   constant | ramp           (default constant)
//   RATE       requests/s for constant   (default 200)
//   DURATION   constant run / ramp plateau (default 30s)
//   VUS        pre-allocated VUs (constant) or the plateau (ramp) (default 32)
//   MAX_VUS    most VUs constant may add (default 128)
//   P95_MS     threshold on the 95th percentile latency (default 50)

export const BASE_URL = __ENV.BASE_URL || 'http://127.0.0.1:8080';
export const GRPC_ADDR = __ENV.GRPC_ADDR || '127.0.0.1:8081';
export const MODEL = __ENV.MODEL || 'mlp';
export const INPUT = __ENV.INPUT || 'input';
export const SHAPE = (__ENV.SHAPE || '1,64').split(',').map(Number);

const int = (name, dflt) => Number(__ENV[name] || dflt);

/** Deterministic FP32 values in [0, 1) filling SHAPE. */
export function sample() {
  const n = SHAPE.reduce((a, b) => a * b, 1);
  const out = new Array(n);
  for (let i = 0; i < n; i++) out[i] = ((i * 7919) % 255) / 255;
  return out;
}

/**
 * Scenarios as MLServer's benchmarks run them: an open model at a fixed arrival rate
 * (`constant`, which shows latency at a given load and counts dropped iterations when the
 * server falls behind), or closed-loop users ramped up, held and ramped down (`ramp`, which
 * finds the throughput plateau). `metric` is the latency metric the p95 threshold applies to
 * (http_req_duration or grpc_req_duration); `extra` adds thresholds.
 */
export function options(metric, extra) {
  const duration = __ENV.DURATION || '30s';
  const vus = int('VUS', 32);
  const scenario =
    (__ENV.SCENARIO || 'constant') === 'ramp'
      ? {
          executor: 'ramping-vus',
          startVUs: 1,
          stages: [
            { duration: '10s', target: vus },
            { duration, target: vus },
            { duration: '5s', target: 0 },
          ],
          gracefulRampDown: '5s',
        }
      : {
          executor: 'constant-arrival-rate',
          rate: int('RATE', 200),
          timeUnit: '1s',
          duration,
          preAllocatedVUs: vus,
          maxVUs: int('MAX_VUS', 128),
        };
  return {
    scenarios: { [__ENV.SCENARIO || 'constant']: scenario },
    thresholds: Object.assign({ checks: ['rate>0.99'], [metric]: [`p(95)<${int('P95_MS', 50)}`] }, extra || {}),
    summaryTrendStats: ['avg', 'med', 'p(90)', 'p(95)', 'p(99)', 'max'],
  };
}

/** sample() as V1 `instances`: one nested row per entry of SHAPE's first dimension. */
export function instances() {
  const flat = sample();
  const nest = (values, dims) => {
    if (dims.length === 1) return values;
    const step = values.length / dims[0];
    const out = [];
    for (let i = 0; i < dims[0]; i++) out.push(nest(values.slice(i * step, (i + 1) * step), dims.slice(1)));
    return out;
  };
  return nest(flat, SHAPE);
}

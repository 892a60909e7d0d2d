/**
 * The ModelInfer codec alone, in process: CPU time per message of proto-loader's generic
 * protobufjs codec (what the server used before issue 19, still loaded for the other
 * methods) and of the hand-written wire codec (protocols/grpc/wire), each followed by the
 * codec to or from the neutral representation, as the server runs them. CPU time of this
 * process (process.cpuUsage), best of several rounds, so other load on a shared machine
 * moves it less than wall time. Nothing judges the numbers.
 *
 *   node --import tsx benchmarks/grpc/codec-bench.ts [--rounds 7]
 */
import type * as grpc from '@grpc/grpc-js';
import { numberArg } from '../harness.js';
import { machineLine } from '../machine.js';
import { decodeGrpcInferRequest } from '../../protocols/grpc/infer-request.js';
import { encodeGrpcInferResponse } from '../../protocols/grpc/infer-response.js';
import type { ModelInferRequestMessage } from '../../protocols/grpc/messages.js';
import { INFERENCE_SERVICE, loadProtocolDefinition } from '../../protocols/grpc/proto.js';
import { decodeModelInferRequest } from '../../protocols/grpc/wire/decode-infer.js';
import { encodeModelInferResponse } from '../../protocols/grpc/wire/encode-infer.js';
import type { InferResponse } from '../../protocols/tensor.js';

const ROUNDS = numberArg('rounds', 7);
const method = (loadProtocolDefinition()[INFERENCE_SERVICE] as grpc.ServiceDefinition)['ModelInfer'] as grpc.MethodDefinition<object, object>;

/** Best CPU µs per call of `f` over ROUNDS rounds of `n` calls, after a warm-up. */
function cpuMicros(n: number, f: () => unknown): number {
  for (let i = 0; i < Math.min(n, 500); i++) f();
  let best = Infinity;
  for (let r = 0; r < ROUNDS; r++) {
    const t = process.cpuUsage();
    for (let i = 0; i < n; i++) f();
    const u = process.cpuUsage(t);
    best = Math.min(best, (u.user + u.system) / n);
  }
  return best;
}

const ramp = (n: number) => Array.from({ length: n }, (_, i) => i / 7);
const input = (model: string, shape: number[], typed: boolean): ModelInferRequestMessage => {
  const count = shape.reduce((a, b) => a * b, 1);
  return typed
    ? { model_name: model, inputs: [{ name: 'input', datatype: 'FP32', shape, contents: { fp32_contents: ramp(count) } }] }
    : { model_name: model, inputs: [{ name: 'input', datatype: 'FP32', shape }], raw_input_contents: [Buffer.from(Float32Array.from(ramp(count)).buffer)] };
};
const output = (model: string, n: number): InferResponse => ({
  modelName: model,
  outputs: [{ name: 'output', datatype: 'FP32', shape: [1, n], data: Float32Array.from(ramp(n)) }],
});

const cases = [
  { label: 'mlp_64x8 raw (1×64 in, 1×8 out)', req: input('mlp', [1, 64], false), res: output('mlp', 8), raw: true, n: 20000 },
  { label: 'mlp_64x8 typed', req: input('mlp', [1, 64], true), res: output('mlp', 8), raw: false, n: 20000 },
  { label: 'conv 1×3×224×224 raw (1×1000 out)', req: input('conv', [1, 3, 224, 224], false), res: output('conv', 1000), raw: true, n: 2000 },
  { label: 'conv 1×3×224×224 typed', req: input('conv', [1, 3, 224, 224], true), res: output('conv', 1000), raw: false, n: 50 },
];

const lines = [
  `Run ${new Date().toISOString()} on ${machineLine()}; CPU µs per message, best of ${ROUNDS} rounds.`,
  '',
  '| message | decode request: proto-loader / wire | encode response: proto-loader / wire |',
  '|---|---:|---:|',
];
for (const c of cases) {
  const wire = method.requestSerialize(c.req);
  const decodeOld = cpuMicros(c.n, () => decodeGrpcInferRequest(method.requestDeserialize(wire)));
  const decodeNew = cpuMicros(c.n, () => decodeGrpcInferRequest(decodeModelInferRequest(wire)));
  // proto-loader takes plain arrays only: what the codec built for it before (Array.from).
  const plain = () => {
    const m = encodeGrpcInferResponse(c.res, c.raw);
    for (const o of m.outputs) if (o.contents?.fp32_contents) o.contents.fp32_contents = Array.from(o.contents.fp32_contents);
    return m;
  };
  const encodeOld = cpuMicros(c.n, () => method.responseSerialize(plain()));
  const encodeNew = cpuMicros(c.n, () => encodeModelInferResponse(encodeGrpcInferResponse(c.res, c.raw)));
  const cell = (a: number, b: number) => `${a.toFixed(2)} / ${b.toFixed(2)} (${(a / b).toFixed(1)}×)`;
  lines.push(`| ${c.label} | ${cell(decodeOld, decodeNew)} | ${cell(encodeOld, encodeNew)} |`);
}
process.stdout.write(`${lines.join('\n')}\n`);

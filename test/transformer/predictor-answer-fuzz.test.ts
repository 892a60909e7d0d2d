/**
 * Fuzzing a transformer's predictor answers (#27): a real transformer server (ModelServer,
 * pass-through Models whose default predict forwards over V1, V2 REST and V2 gRPC) in front
 * of a stand-in predictor on loopback that answers each forwarded request with a generated
 * answer: any status, any JSON, V1 and V2 shaped documents with hostile shapes and data,
 * nesting far past any rank, raw bytes, bodies past the answer budget, bodies cut short,
 * and for gRPC any status and any bytes as the ModelInferResponse. Checked: the transformer
 * never answers 500 (an unmapped failure) or drops the connection, and it keeps serving
 * right answers afterwards; its RSS stays bounded. Seed printed (FUZZ_SEED replays);
 * FUZZ_PREDICTOR_ANSWERS sets the count (default 600).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as grpc from '@grpc/grpc-js';
import fc from 'fast-check';
import { pino } from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { INFERENCE_SERVICE, loadProtocolDefinition } from '../../protocols/grpc/proto.js';
import { Model, ModelServer } from '../../server/sdk/index.js';

const SEED = Number(process.env['FUZZ_SEED'] ?? Math.floor(Math.random() * 2 ** 31));
const ANSWERS = Number(process.env['FUZZ_PREDICTOR_ANSWERS'] ?? 600);
/** Small, so generated bodies pass it and its refusal is exercised. */
const ANSWER_BUDGET = 256 * 1024;

type RestAnswer = { kind: 'rest'; status: number; contentType: string; body: string | Uint8Array; cut: boolean };
type GrpcAnswer = { kind: 'grpc'; code: number; details: string; message: Uint8Array | Record<string, unknown> };
type Answer = RestAnswer | GrpcAnswer;

const dim = fc.oneof(fc.integer({ min: 0, max: 4 }), fc.constantFrom(-1, 2 ** 31, 2 ** 53, 1e300, 0.5));
const leaf = fc.oneof(fc.integer(), fc.double(), fc.boolean(), fc.string({ maxLength: 3 }), fc.constant(null));
const data = fc.letrec<{ v: unknown }>((tie) => ({ v: fc.oneof({ depthSize: 'small' }, leaf, fc.array(tie('v'), { maxLength: 4 })) })).v;
const datatype = fc.constantFrom('FP32', 'FP64', 'INT64', 'UINT8', 'BOOL', 'BYTES', 'FP16', 'BF16', 'X', '');
const v2Output = fc.record(
  { name: fc.constantFrom('y', '', 'label'), datatype, shape: fc.array(dim, { maxLength: 4 }), data, parameters: fc.dictionary(fc.string({ maxLength: 3 }), leaf, { maxKeys: 2 }) },
  { requiredKeys: [] },
);
const deep = fc.tuple(fc.integer({ min: 65, max: 100_000 }), fc.constantFrom('predictions', 'outputs', 'data')).map(([n, key]) => `{"${key}":${'['.repeat(n)}${']'.repeat(n)}}`);
const restBody = fc.oneof(
  fc.jsonValue().map((v) => JSON.stringify(v)),
  fc.record({ predictions: fc.array(data, { maxLength: 4 }) }, { requiredKeys: [] }).map((v) => JSON.stringify(v)),
  fc
    .record(
      {
        model_name: fc.string({ maxLength: 4 }),
        id: fc.oneof(fc.string({ maxLength: 4 }), fc.integer()),
        outputs: fc.array(v2Output, { maxLength: 3 }),
        parameters: fc.jsonValue(),
      },
      { requiredKeys: [] },
    )
    .map((v) => JSON.stringify(v)),
  fc.record({ error: fc.oneof(fc.string({ maxLength: 20 }), fc.jsonValue()) }).map((v) => JSON.stringify(v)),
  deep,
  fc.uint8Array({ maxLength: 64 }),
  // Past the answer budget: refused while it is read.
  fc.integer({ min: ANSWER_BUDGET + 1, max: 2 * ANSWER_BUDGET }).map((n) => `{"predictions":[1]${' '.repeat(n)}}`),
);
const restAnswer: fc.Arbitrary<RestAnswer> = fc.record({
  kind: fc.constant('rest' as const),
  status: fc.constantFrom(200, 200, 200, 200, 201, 204, 301, 400, 404, 409, 413, 422, 429, 500, 501, 503),
  contentType: fc.constantFrom('application/json', 'text/plain', 'application/octet-stream', ''),
  body: restBody,
  cut: fc.constantFrom(false, false, false, true),
});
const grpcOutput = fc.record(
  {
    name: fc.constantFrom('y', ''),
    datatype,
    shape: fc.array(fc.oneof(fc.integer({ min: -2, max: 4 }), fc.constantFrom(2 ** 31, 2 ** 53)).map(String), { maxLength: 3 }),
    contents: fc.record(
      {
        fp32_contents: fc.array(fc.float(), { maxLength: 4 }),
        int64_contents: fc.array(fc.integer().map(String), { maxLength: 3 }),
        bytes_contents: fc.array(
          fc.uint8Array({ maxLength: 4 }).map((b) => Buffer.from(b)),
          { maxLength: 2 },
        ),
      },
      { requiredKeys: [] },
    ),
  },
  { requiredKeys: [] },
);
const grpcAnswer: fc.Arbitrary<GrpcAnswer> = fc.record({
  kind: fc.constant('grpc' as const),
  code: fc.constantFrom(0, 0, 0, 0, 2, 3, 5, 8, 12, 13, 14),
  details: fc.string({ maxLength: 20 }),
  message: fc.oneof(
    fc.uint8Array({ maxLength: 64 }),
    fc.record(
      {
        model_name: fc.string({ maxLength: 4 }),
        id: fc.string({ maxLength: 4 }),
        outputs: fc.array(grpcOutput, { maxLength: 3 }),
        raw_output_contents: fc.array(
          fc.uint8Array({ maxLength: 16 }).map((b) => Buffer.from(b)),
          { maxLength: 2 },
        ),
      },
      { requiredKeys: [] },
    ),
  ),
});

/** Answers by request id; the stand-in predictor reads its answer here. */
const answers = new Map<string, Answer>();
const right = (v2: boolean): RestAnswer => ({
  kind: 'rest',
  status: 200,
  contentType: 'application/json',
  body: JSON.stringify(v2 ? { model_name: 'v2', outputs: [{ name: 'y', datatype: 'FP32', shape: [1], data: [7] }] } : { predictions: [7] }),
  cut: false,
});

let rest: http.Server;
let grpcServer: grpc.Server;
let server: ModelServer;
let url = '';

function answerRest(req: http.IncomingMessage, res: http.ServerResponse): void {
  req.resume();
  req.on('end', () => {
    const id = String(req.headers['x-request-id'] ?? '');
    const a = answers.get(id);
    const answer = a?.kind === 'rest' ? a : id === 'right' ? right(req.url?.startsWith('/v2/') === true) : undefined;
    if (answer === undefined) {
      res.writeHead(404).end();
      return;
    }
    const body = typeof answer.body === 'string' ? Buffer.from(answer.body) : Buffer.from(answer.body);
    const headers: Record<string, string | number> = { 'content-length': answer.cut ? body.length + 100 : body.length, 'x-request-id': id };
    if (answer.contentType !== '') headers['content-type'] = answer.contentType;
    if (answer.status === 301) headers['location'] = '/elsewhere';
    res.writeHead(answer.status, headers);
    if (answer.cut) {
      res.write(body.subarray(0, Math.floor(body.length / 2)));
      res.destroy();
    } else res.end(body);
  });
}

beforeAll(async () => {
  rest = http.createServer(answerRest);
  await new Promise<void>((r) => rest.listen(0, '127.0.0.1', r));
  const restHost = `127.0.0.1:${(rest.address() as AddressInfo).port}`;

  const definition = loadProtocolDefinition();
  const service = definition[INFERENCE_SERVICE] as unknown as Record<string, grpc.MethodDefinition<unknown, unknown>>;
  const modelInfer = service['ModelInfer'] as grpc.MethodDefinition<unknown, unknown>;
  const encode = (m: Uint8Array | Record<string, unknown>) => (m instanceof Uint8Array ? Buffer.from(m) : modelInfer.responseSerialize(m));
  grpcServer = new grpc.Server();
  grpcServer.addService(
    { ModelInfer: { ...modelInfer, responseSerialize: (b: Buffer) => b } },
    {
      ModelInfer: (call: grpc.ServerUnaryCall<unknown, Buffer>, cb: grpc.sendUnaryData<Buffer>) => {
        const id = String(call.metadata.get('x-request-id')[0] ?? '');
        const a = answers.get(id);
        if (id === 'right') cb(null, encode({ model_name: 'g', outputs: [{ name: 'y', datatype: 'FP32', shape: ['1'], contents: { fp32_contents: [7] } }] }));
        else if (a?.kind !== 'grpc') cb({ code: grpc.status.NOT_FOUND, details: 'no answer' });
        else if (a.code !== 0) cb({ code: a.code, details: a.details });
        else cb(null, encode(a.message));
      },
    },
  );
  const grpcPort = await new Promise<number>((r, j) => grpcServer.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? j(e) : r(p))));

  const transformer = (name: string, protocol: 'v1' | 'v2' | 'grpc-v2', host: string) =>
    new Model(name, { predictor: { host, protocol, requestTimeoutSeconds: 10, maxInflightAnswerBytes: ANSWER_BUDGET } });
  server = new ModelServer({ httpPort: 0, enableGrpc: false, httpHost: '127.0.0.1', logger: pino({ level: 'silent' }) });
  await server.start([transformer('v1', 'v1', restHost), transformer('v2', 'v2', restHost), transformer('g', 'grpc-v2', `127.0.0.1:${grpcPort}`)]);
  url = `http://127.0.0.1:${server.httpPort}`;
});
afterAll(async () => {
  await server?.stop();
  grpcServer?.forceShutdown();
  rest?.closeAllConnections();
  await new Promise((r) => rest?.close(r));
});

const REQUEST = JSON.stringify({ inputs: [{ name: 'x', datatype: 'FP32', shape: [1], data: [1] }] });
const ask = (model: string, id: string) =>
  fetch(`${url}/v2/models/${model}/infer`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-request-id': id }, body: REQUEST }).then(
    async (r) => `${r.status} ${(await r.text()).slice(0, 200)}`,
    (e: unknown) => `closed ${String(e)}`,
  );
const rssMb = () => Math.round(process.memoryUsage().rss / 2 ** 20);

it(`${ANSWERS} generated predictor answers over V1, V2 REST and gRPC: never a 500 or a dropped connection, right answers after (seed ${SEED})`, async () => {
  console.log(`predictor answer fuzz: seed ${SEED} (replay with FUZZ_SEED=${SEED}), ${ANSWERS} answers`);
  const anyCase = fc.oneof(fc.record({ model: fc.constantFrom('v1', 'v2'), a: restAnswer }), fc.record({ model: fc.constant('g'), a: grpcAnswer }));
  const cases = fc.sample(anyCase, { numRuns: ANSWERS, seed: SEED });
  const before = rssMb();
  let peak = before;
  const bad: string[] = [];
  const outcomes = new Map<string, number>();
  for (let i = 0; i < cases.length; i += 8) {
    const batch = cases.slice(i, i + 8);
    batch.forEach((c, j) => answers.set(`case-${i + j}`, c.a));
    const got = await Promise.all(batch.map((c, j) => ask(c.model, `case-${i + j}`)));
    for (const [j, o] of got.entries()) {
      const status = o.split(' ')[0] as string;
      outcomes.set(status, (outcomes.get(status) ?? 0) + 1);
      if (status === '500' || status === 'closed') bad.push(`${o} <- ${batch[j]?.model} ${JSON.stringify(batch[j]?.a).slice(0, 300)}`);
    }
    for (let j = 0; j < batch.length; j++) answers.delete(`case-${i + j}`);
    peak = Math.max(peak, rssMb());
  }
  console.log(`predictor answer fuzz: outcomes ${JSON.stringify(Object.fromEntries(outcomes))}, RSS before ${before} MB, peak ${peak} MB`);
  expect(bad).toEqual([]);
  for (const model of ['v1', 'v2', 'g']) expect(await ask(model, 'right')).toMatch(/^200 .*7/);
  expect(peak - before).toBeLessThan(512);
}, 600_000);

/**
 * Over-the-wire fuzzing of a live server (#16): a few thousand hostile requests over REST
 * (V1, V2 JSON, V2 binary, raw HTTP) and gRPC (message objects and raw protobuf bytes), each
 * carrying credentials (an Authorization header, a token in the query string, AWS keys in
 * the body). Checked: no 5xx but the documented 503s, no gRPC INTERNAL or UNKNOWN; a
 * bystander client's keep-alive connection is never dropped and keeps getting right answers;
 * the memory the server keeps stays bounded (the JavaScript heap and buffers still reachable
 * after a full collection, not RSS, which moves with when the collector last ran; RSS is
 * printed); the model answers right afterwards; and no credential appears in any log line
 * (the server logs at trace). Seed printed (FUZZ_SEED replays); FUZZ_WIRE_REQUESTS sets the
 * count (default 3000).
 */
import http from 'node:http';
import { Writable } from 'node:stream';
import v8 from 'node:v8';
import vm from 'node:vm';
import fc from 'fast-check';
import { pino } from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseServeArgs } from '../server/config.js';
import { type ModelServer, createServer, defaultBackends } from '../server/server.js';
import { grpc } from './grpc/client.js';
import { loadProtocolDefinition, INFERENCE_SERVICE } from '../protocols/grpc/proto.js';
import { makeRepository } from './helpers/server.js';

const SEED = Number(process.env['FUZZ_SEED'] ?? Math.floor(Math.random() * 2 ** 31));
const REQUESTS = Number(process.env['FUZZ_WIRE_REQUESTS'] ?? 3000);
const SECRETS = ['AKIAFUZZSECRET000001', 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYFUZZSECRET', 'Bearer-fuzz-token-5e6f', 'sig=fuzzsas0123456789'];

let server: ModelServer;
let url: string;
let grpcTarget: string;
let repo: ReturnType<typeof makeRepository>;
const logLines: string[] = [];

beforeAll(async () => {
  repo = makeRepository({ m: 'identity_fp32', s: 'identity_bytes', a: 'add_sub', f: 'add_free_dims' });
  const backends = defaultBackends();
  const { config } = parseServeArgs(
    [
      '--http_port',
      '0',
      '--http_host',
      '127.0.0.1',
      '--model_repository',
      repo.dir,
      '--intra_op_threads',
      '1',
      '--max_tensor_elements',
      '100000',
      '--rest_max_body_bytes',
      String(1 << 20),
      '--grace_period_seconds',
      '5',
    ],
    {},
    backends.flags(),
  );
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      logLines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  server = await createServer(config, pino({ level: 'trace' }, sink), { backends, defaultMetrics: false });
  await server.http.listen({ host: '127.0.0.1', port: 0 });
  const port = await (server.grpc as NonNullable<ModelServer['grpc']>).listen('127.0.0.1', 0);
  await server.repository.loadStartupModels();
  const addr = server.http.server.address();
  if (addr === null || typeof addr === 'string') throw new Error('no address');
  url = `http://127.0.0.1:${addr.port}`;
  grpcTarget = `127.0.0.1:${port}`;
});
afterAll(async () => {
  await server.close();
  repo.cleanup();
});

const definition = loadProtocolDefinition();
const inferService = definition[INFERENCE_SERVICE] as unknown as Record<string, grpc.MethodDefinition<unknown, unknown>>;
const inferMethod = inferService['ModelInfer'] as grpc.MethodDefinition<unknown, unknown>;

/** A gRPC client that sends raw bytes as ModelInfer requests (the codec under test is the server's). */
const RawClient = grpc.makeGenericClientConstructor(
  {
    ModelInfer: { ...inferMethod, requestSerialize: (b: Buffer) => b, responseDeserialize: (b: Buffer) => b },
    Call: { ...inferMethod, requestSerialize: (v: unknown) => inferMethod.requestSerialize(v), responseDeserialize: (b: Buffer) => b },
  },
  'inference.GRPCInferenceService',
);

const dim = fc.oneof(fc.integer({ min: 0, max: 4 }), fc.constantFrom(2 ** 31, 2 ** 53, -1, 1e300, 0.5));
const leaf = fc.oneof(fc.integer(), fc.double(), fc.boolean(), fc.string({ maxLength: 3 }), fc.constant(null));
const data = fc.letrec<{ v: unknown }>((tie) => ({ v: fc.oneof({ depthSize: 'small' }, leaf, fc.array(tie('v'), { maxLength: 4 })) })).v;
const v2 = fc.record({
  inputs: fc.array(
    fc.record(
      {
        name: fc.constantFrom('INPUT0', 'x', ''),
        datatype: fc.constantFrom('FP32', 'BYTES', 'INT64', 'FP16', 'X'),
        shape: fc.array(dim, { maxLength: 4 }),
        data,
        parameters: fc.record({ binary_data_size: fc.integer({ min: -1, max: 64 }) }, { requiredKeys: [] }),
      },
      { requiredKeys: [] },
    ),
    { maxLength: 3 },
  ),
  aws_secret: fc.constant(SECRETS[1]),
});
type Case =
  | { kind: 'v2'; model: string; doc: unknown; binary: Uint8Array | undefined }
  | { kind: 'v1'; model: string; doc: unknown }
  | { kind: 'load'; model: string }
  | { kind: 'http'; text: string }
  | { kind: 'grpc'; msg: unknown }
  | { kind: 'grpc-bytes'; bytes: Uint8Array }
  | { kind: 'ce'; path: string; event: string };
const model = fc.constantFrom('m', 's', 'missing', '..%2F..%2Fetc', 'm%00', 'x'.repeat(300), 'ü');
/** A structured-mode CloudEvent's data as text: a V2 or V1 document, any JSON, or nesting far past any tensor's rank. */
const ceData = fc.oneof(
  v2.map((d) => JSON.stringify(d)),
  fc.record({ instances: fc.array(data, { maxLength: 4 }) }).map((d) => JSON.stringify(d)),
  fc.jsonValue().map((d) => JSON.stringify(d)),
  fc
    .tuple(fc.integer({ min: 65, max: 100_000 }), fc.constantFrom('[', '{"a":'))
    .map(([n, open]) => `${open.repeat(n)}${open === '[' ? '' : '1'}${(open === '[' ? ']' : '}').repeat(n)}`),
);
const ceAttributes = fc.record(
  { specversion: fc.constantFrom('1.0', '0.3', '9'), id: fc.string({ maxLength: 4 }), source: fc.constant('urn:fuzz'), type: fc.constant('t') },
  { requiredKeys: [] },
);
const ceEvent = fc.tuple(ceAttributes, ceData, fc.constantFrom('data', 'data_base64', 'both')).map(([attrs, text, how]) => {
  const head = JSON.stringify(attrs).slice(0, -1);
  const sep = head.length > 1 ? ',' : '';
  const b64 = JSON.stringify(Buffer.from(text).toString('base64'));
  const members = how === 'data' ? `"data":${text}` : how === 'data_base64' ? `"data_base64":${b64}` : `"data":${text},"data_base64":${b64}`;
  return `${head}${sep}${members}}`;
});
const anyCase: fc.Arbitrary<Case> = fc.oneof(
  fc.record({ kind: fc.constant('v2' as const), model, doc: fc.oneof(v2, fc.jsonValue()), binary: fc.option(fc.uint8Array({ maxLength: 64 }), { nil: undefined }) }),
  // Loads of names that are not in the repository (reloading the real ones is the lifecycle test's job).
  fc.record({ kind: fc.constant('load' as const), model: fc.string({ minLength: 1, maxLength: 12 }).map((n) => encodeURIComponent(`z${n}`)) }),
  fc.record({ kind: fc.constant('v1' as const), model, doc: fc.oneof(fc.record({ instances: fc.array(data, { maxLength: 4 }) }), fc.jsonValue()) }),
  fc.record({
    kind: fc.constant('http' as const),
    text: fc.constantFrom(
      'POST /v2/models/m/infer HTTP/1.1\r\nHost: x\r\nContent-Length: 5x\r\n\r\n',
      'POST /v2/models/m/infer HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nq\r\n',
      'GET /v2/models/m/ready?token=Bearer-fuzz-token-5e6f HTTP/1.1\r\nHost: x\r\n\r\n',
      'POST /v2/models/m/infer HTTP/1.1\r\nHost: x\r\nInference-Header-Content-Length: 999999999999\r\nContent-Length: 2\r\n\r\n{}',
    ),
  }),
  fc.record({
    kind: fc.constant('grpc' as const),
    msg: fc.record(
      {
        model_name: model,
        inputs: fc.array(
          fc.record(
            {
              name: fc.constantFrom('INPUT0', ''),
              datatype: fc.constantFrom('FP32', 'BYTES', 'INT8'),
              shape: fc.array(
                dim.map((d) => String(Math.trunc(Number.isFinite(d) ? d : 1))),
                { maxLength: 3 },
              ),
              contents: fc.record({ fp32_contents: fc.array(fc.float(), { maxLength: 4 }) }, { requiredKeys: [] }),
            },
            { requiredKeys: [] },
          ),
          { maxLength: 3 },
        ),
        raw_input_contents: fc.array(
          fc.uint8Array({ maxLength: 32 }).map((b) => Buffer.from(b)),
          { maxLength: 3 },
        ),
      },
      { requiredKeys: ['model_name'] },
    ),
  }),
  fc.record({ kind: fc.constant('grpc-bytes' as const), bytes: fc.uint8Array({ maxLength: 64 }) }),
  // CloudEvents in structured mode, on V1 and V2 (#27 item 5).
  fc.record({ kind: fc.constant('ce' as const), path: fc.tuple(model, fc.boolean()).map(([m, v1]) => (v1 ? `/v1/models/${m}:predict` : `/v2/models/${m}/infer`)), event: ceEvent }),
);

const rssMb = () => Math.round(process.memoryUsage().rss / 2 ** 20);
// A full collection on demand (the server runs in this process): what is still reachable
// afterwards is what the server keeps, whenever the collector would have run by itself.
v8.setFlagsFromString('--expose-gc');
const collect = vm.runInNewContext('gc') as () => void;
v8.setFlagsFromString('--no-expose-gc');
const keptMb = () => {
  collect();
  collect();
  const m = process.memoryUsage();
  return Math.round((m.heapUsed + m.external) / 2 ** 20);
};
const right = { inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 2], data: [1.5, -2] }] };
const rightAnswer = '"data":[1.5,-2.0]';

async function send(c: Case, client: grpc.Client): Promise<string> {
  const auth = { authorization: `Bearer ${SECRETS[2]}` };
  switch (c.kind) {
    case 'v2': {
      const head = Buffer.from(JSON.stringify(c.doc) ?? 'null');
      const body = c.binary === undefined ? head : Buffer.concat([head, c.binary]);
      const headers: Record<string, string> = {
        ...auth,
        'content-type': 'application/json',
        ...(c.binary === undefined ? {} : { 'inference-header-content-length': String(head.byteLength) }),
      };
      const r = await fetch(`${url}/v2/models/${c.model}/infer?sig=${SECRETS[3]}&X-Amz-Credential=${SECRETS[0]}`, { method: 'POST', headers, body });
      return `http ${r.status} ${await r.text()}`;
    }
    case 'v1': {
      const r = await fetch(`${url}/v1/models/${c.model}:predict?token=${SECRETS[2]}`, { method: 'POST', headers: auth, body: JSON.stringify(c.doc) ?? 'null' });
      return `http ${r.status} ${await r.text()}`;
    }
    case 'ce': {
      const r = await fetch(`${url}${c.path}?token=${SECRETS[2]}`, { method: 'POST', headers: { ...auth, 'content-type': 'application/cloudevents+json' }, body: c.event });
      return `http ${r.status} ${await r.text()}`;
    }
    case 'load': {
      const r = await fetch(`${url}/v2/repository/models/${c.model}/load`, { method: 'POST', headers: auth });
      return `http ${r.status} ${await r.text()}`;
    }
    case 'http': {
      const { connect } = await import('node:net');
      const out = await new Promise<string>((resolve) => {
        const s = connect(Number(new URL(url).port), '127.0.0.1');
        let text = '';
        s.on('data', (d) => (text += d.toString()));
        s.on('close', () => resolve(text));
        s.on('error', () => resolve(text));
        s.end(c.text);
      });
      return `http ${/^HTTP\/1\.1 (\d+)/.exec(out)?.[1] ?? 'closed'} ${out.split('\r\n\r\n')[1] ?? ''}`;
    }
    case 'grpc':
    case 'grpc-bytes':
      return new Promise((resolve) => {
        const md = new grpc.Metadata();
        md.set('authorization', `Bearer ${SECRETS[2]}`);
        const method = c.kind === 'grpc' ? 'Call' : 'ModelInfer';
        const payload = c.kind === 'grpc' ? c.msg : Buffer.from(c.bytes);
        (client as unknown as Record<string, (...args: unknown[]) => unknown>)[method]!.call(
          client,
          payload,
          md,
          { deadline: Date.now() + 10_000 },
          (err: grpc.ServiceError | null) => resolve(err ? `grpc ${err.code} ${err.details}` : 'grpc 0'),
        );
      });
  }
}

it(`${REQUESTS} hostile requests over REST and gRPC: no 5xx, no INTERNAL, bystanders served, RSS bounded, no credential logged (seed ${SEED})`, async () => {
  console.log(`wire fuzz: seed ${SEED} (replay with FUZZ_SEED=${SEED}), ${REQUESTS} requests`);
  const client = new RawClient(grpcTarget, grpc.credentials.createInsecure());
  // The bystander: one keep-alive connection of its own, asking between the hostile requests;
  // a dropped connection would show as a new local port.
  const bystander = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const ports = new Set<number>();
  const ask = () =>
    new Promise<string>((resolve, reject) => {
      const body = JSON.stringify(right);
      const req = http.request(
        `${url}/v2/models/m/infer`,
        { method: 'POST', agent: bystander, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
        (res) => {
          let text = '';
          res.on('data', (d: Buffer) => (text += d.toString()));
          res.on('end', () => resolve(`${res.statusCode} ${text}`));
        },
      );
      req.on('socket', (s) => s.once('connect', () => ports.add(s.localPort ?? 0)));
      req.on('error', reject);
      req.end(body);
    });
  try {
    expect(await ask()).toContain(rightAnswer);
    const before = rssMb();
    const keptBefore = keptMb();
    const cases = fc.sample(anyCase, { numRuns: REQUESTS, seed: SEED });
    const bad: string[] = [];
    const statuses = new Map<string, number>();
    let peak = before;
    for (let i = 0; i < cases.length; i += 16) {
      const outcomes = await Promise.all(cases.slice(i, i + 16).map((c) => send(c, client)));
      for (const [j, o] of outcomes.entries()) {
        const code = o.split(' ').slice(0, 2).join(' ');
        statuses.set(code, (statuses.get(code) ?? 0) + 1);
        const http5xx = /^http 5\d\d/.test(o) && !/^http 503/.test(o);
        const grpcBad = /^grpc (2|13) /.test(o); // UNKNOWN, INTERNAL
        if (http5xx || grpcBad || /^http closed/.test(o)) bad.push(`${o.slice(0, 200)} <- ${JSON.stringify(cases[i + j]).slice(0, 300)}`);
        for (const s of SECRETS) if (o.includes(s)) bad.push(`secret in a response: ${o.slice(0, 200)}`);
      }
      // Every batch, well within --timeout_keep_alive, so its connection never idles out.
      {
        const answer = await ask();
        if (!answer.includes(rightAnswer)) bad.push(`bystander got ${answer.slice(0, 200)}`);
        peak = Math.max(peak, rssMb());
      }
    }
    const after = rssMb();
    const keptAfter = keptMb();
    console.log(
      `wire fuzz: ${cases.length} requests, outcomes ${JSON.stringify(Object.fromEntries(statuses))}, ` +
        `kept (heap + buffers after a full collection) before ${keptBefore} MB, after ${keptAfter} MB; RSS before ${before} MB, peak ${peak} MB, after ${after} MB; log lines ${logLines.length}`,
    );
    expect(bad).toEqual([]);
    // Bounded: no request may make the server keep what it sent (1 MiB bodies at most here).
    expect(keptAfter - keptBefore).toBeLessThan(64);
    expect(await ask()).toContain(rightAnswer);
    expect(ports.size).toBe(1); // the bystander's one connection was never dropped
    // Metric labels only from models that exist, whatever names the requests carried (item 4).
    const labels = new Set([...(await server.metrics.render()).matchAll(/model_name="([^"]*)"/g)].map((m) => m[1]));
    expect([...labels].filter((l) => !['m', 's', 'a', 'f'].includes(l as string))).toEqual([]);
    const leaked = logLines.filter((l) => SECRETS.some((s) => l.includes(s)));
    expect(leaked.slice(0, 3)).toEqual([]);
    expect(logLines.length).toBeGreaterThan(0);
  } finally {
    client.close();
    bystander.destroy();
  }
}, 600_000);

it('a failed inference: the 500 names no source path of the runtime, and its log line has no query string, token or Authorization', async () => {
  const rows = (n: number) => Array.from({ length: n }, () => new Array(16).fill(1));
  const body = {
    inputs: [
      { name: 'INPUT0', datatype: 'FP32', shape: [2, 16], data: rows(2) },
      { name: 'INPUT1', datatype: 'FP32', shape: [3, 16], data: rows(3) },
    ],
  };
  // add_free_dims: nothing before the graph says the two first dims must agree, so onnxruntime fails the run.
  const r = await fetch(`${url}/v2/models/f/infer?token=${SECRETS[2]}&sig=${SECRETS[3]}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${SECRETS[2]}`, 'x-amz-security-token': SECRETS[0] as string },
    body: JSON.stringify(body),
  });
  const text = await r.text();
  expect(r.status).toBe(500);
  expect(JSON.parse(text)).toEqual({ error: expect.stringContaining('Attempting to broadcast an axis by a dimension other than 1') });
  expect(text).not.toMatch(/onnxruntime_src|\.h:\d+|\.cc:\d+/);
  const failed = logLines.filter((l) => l.includes('request failed'));
  expect(failed.length).toBeGreaterThan(0);
  expect(failed.some((l) => l.includes('"url":"/v2/models/f/infer"'))).toBe(true);
  expect(logLines.filter((l) => SECRETS.some((s) => l.includes(s)) || l.includes('token=') || l.includes('Bearer'))).toEqual([]);
});

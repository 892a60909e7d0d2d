/**
 * The transformer as a user runs it: `node --import tsx dist/bin/kserve-ts.js serve
 * --model_name iris --model_module examples/transformer/iris-transformer.ts
 * --predictor_host ... --predictor_protocol v2` as a child process, in front of the ONNX
 * iris predictor served by the same CLI as another child process. Also through the whole
 * server: the request id reaches the predictor and comes back, the predictor flags are not
 * reported as inert, a predictor that is gone is a 502 at once (not a hang), and a slow
 * predictor is a 504 after --predictor_request_timeout_seconds.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, json, post } from '../helpers/http.js';
import { type CliProcess, restPort, runCli } from '../helpers/process.js';
import { IRIS_DIR } from '../helpers/server.js';
import { waitFor } from '../helpers/wait-for.js';

const LOOPBACK = ['--http_host', '127.0.0.1', '--http_port', '0', '--grpc_port', '0'];
const MM = [
  [51, 35, 14, 2],
  [68, 28, 48, 14],
];

/** The CLI under tsx, as the README runs it (the example is TypeScript). */
function runTransformer(args: string[]): CliProcess {
  const before = process.env['NODE_OPTIONS'];
  // spawn copies the environment when called: set for this one child only.
  process.env['NODE_OPTIONS'] = `${before ?? ''} --import tsx`.trim();
  try {
    return runCli(['serve', '--model_name', 'iris', '--model_module', 'examples/transformer/iris-transformer.ts', ...LOOPBACK, ...args]);
  } finally {
    if (before === undefined) delete process.env['NODE_OPTIONS'];
    else process.env['NODE_OPTIONS'] = before;
  }
}

async function stop(p: CliProcess | undefined): Promise<void> {
  if (p === undefined || p.child.exitCode !== null) return;
  p.child.kill('SIGINT');
  await p.exited;
}

async function started(p: CliProcess): Promise<string> {
  const port = await restPort(p);
  await p.waitForLog((l) => l['msg'] === 'server started');
  return `http://127.0.0.1:${port}`;
}

describe('kserve-ts serve --model_module examples/transformer/iris-transformer.ts', () => {
  let predictor: CliProcess;
  let transformer: CliProcess;
  let predictorUrl: string;
  let url: string;
  beforeAll(async () => {
    predictor = runCli(['serve', '--model_name', 'iris', '--model_dir', IRIS_DIR, ...LOOPBACK]);
    predictorUrl = await started(predictor);
    transformer = runTransformer(['--predictor_host', predictorUrl.replace('http://', ''), '--predictor_protocol', 'v2', '--predictor_request_retries', '1']);
    url = await started(transformer);
  }, 60_000);
  afterAll(async () => {
    await stop(transformer);
    await stop(predictor);
  });

  it('answers species with the predictor’s probabilities, V1 and V2', async () => {
    expect(json(await post(`${url}/v1/models/iris:predict`, { instances: MM }))).toEqual({ predictions: ['setosa', 'versicolor'] });
    const direct = json(
      await post(`${predictorUrl}/v2/models/iris/infer`, {
        inputs: [{ name: 'input', shape: [2, 4], datatype: 'FP32', data: MM.flat().map((v) => v / 10) }],
        outputs: [{ name: 'probabilities' }],
      }),
    ) as {
      outputs: { data: number[] }[];
    };
    const r = await post(`${url}/v2/models/iris/infer`, { inputs: [{ name: 'measurements_mm', shape: [2, 4], datatype: 'FP32', data: MM.flat() }] });
    expect(r.status).toBe(200);
    expect(json(r)).toMatchObject({
      outputs: [
        { name: 'species', data: ['setosa', 'versicolor'] },
        { name: 'probabilities', data: direct.outputs[0]?.data },
      ],
    });
  });

  it('takes the predictor flags as effective, not as accepted-and-ignored', () => {
    expect(transformer.output()).not.toMatch(/predictor_[a-z_]+.*(no effect|not implemented)/);
  });

  it('a predictor that is gone is a 502 naming it, at once', async () => {
    await stop(predictor);
    expectError(await post(`${url}/v1/models/iris:predict`, { instances: MM }), 502, /^Predictor http:\/\/127\.0\.0\.1:\d+ is unreachable: .*ECONNREFUSED.*\(2 attempts\)$/);
  });
});

describe('a slow predictor', () => {
  let slow: Server;
  let transformer: CliProcess;
  /** With KServe's default timeout (600 s): only the client's going away can end its forwarded call. */
  let patient: CliProcess;
  /** The same in worker mode, where the hooks' request.signal crosses to the model's thread. */
  let patientWorker: CliProcess;
  const seen: IncomingMessage[] = [];
  beforeAll(async () => {
    // Accepts the request and never answers.
    slow = createServer((req) => seen.push(req));
    await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
    const port = (slow.address() as AddressInfo).port;
    transformer = runTransformer([
      '--predictor_host',
      `127.0.0.1:${port}`,
      '--predictor_protocol',
      'v2',
      '--predictor_request_timeout_seconds',
      '1',
      '--predictor_request_retries',
      '3',
    ]);
    patient = runTransformer(['--predictor_host', `127.0.0.1:${port}`, '--predictor_protocol', 'v2']);
    patientWorker = runTransformer(['--predictor_host', `127.0.0.1:${port}`, '--predictor_protocol', 'v2', '--model_module_worker']);
  }, 60_000);
  afterAll(async () => {
    await stop(transformer);
    await stop(patient);
    await stop(patientWorker);
    slow.closeAllConnections();
    await new Promise((r) => slow.close(r));
  });

  it('is a 504 after --predictor_request_timeout_seconds, tried once (a timeout is never retried); the request id, trace id and authorization reached it', async () => {
    const url = await started(transformer);
    const headers = { 'x-request-id': 'cli-req-7', 'x-b3-traceid': '80f198ee56343ba864fe8b2a57d3eff7', authorization: 'Bearer t0k', cookie: 'session=1', 'x-custom': 'no' };
    const r = await post(`${url}/v2/models/iris/infer`, { inputs: [{ name: 'measurements_mm', shape: [1, 4], datatype: 'FP32', data: MM[0] }] }, headers);
    expectError(r, 504, /^Predictor http:\/\/127\.0\.0\.1:\d+ did not answer within 1 s/);
    // Sent before the timeout; on a loaded machine this process may read it only now.
    await waitFor(() => seen.length >= 1, { intervalMs: 10, description: 'the forwarded request at the predictor' });
    expect(seen).toHaveLength(1);
    const got = seen[0] as IncomingMessage;
    expect(got.url).toBe('/v2/models/iris/infer');
    expect(got.headers).toMatchObject({
      'x-request-id': 'cli-req-7',
      'x-b3-traceid': '80f198ee56343ba864fe8b2a57d3eff7',
      authorization: 'Bearer t0k',
      'content-type': 'application/json',
    });
    expect(got.headers['cookie']).toBeUndefined();
    expect(got.headers['x-custom']).toBeUndefined();
  });

  it.each([
    ['', () => patient],
    [' (--model_module_worker, the example being TypeScript under NODE_OPTIONS=--import tsx)', () => patientWorker],
  ])('a client that goes away aborts the forwarded request%s', async (_mode, which) => {
    const url = await started(which());
    const before = seen.length;
    const controller = new AbortController();
    const pending = fetch(`${url}/v2/models/iris/infer`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ inputs: [{ name: 'measurements_mm', shape: [1, 4], datatype: 'FP32', data: MM[0] }] }),
      signal: controller.signal,
    }).catch((e: unknown) => e);
    await waitFor(() => seen.length > before, { intervalMs: 10, description: 'the forwarded request at the predictor' });
    const forwarded = seen[before] as IncomingMessage;
    const closed = new Promise<void>((r) => forwarded.socket.once('close', () => r()));
    controller.abort();
    await pending;
    // Nothing else ends it (600 s timeout); vitest's test timeout bounds the wait.
    await closed;
    expect(forwarded.complete).toBe(true);
  });
});

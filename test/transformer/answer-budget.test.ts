/**
 * A transformer's predictor answers are bounded in total, not only each (#27 item 9): the
 * REST answers being read at once share --predictor_max_inflight_answer_bytes
 * (server/byte-budget.ts, the REST request bodies' budget), so a predictor that streams
 * endless answers cannot take the transformer's memory with it. Against a real HTTP
 * predictor on loopback that sends part of each answer and holds it open.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { KServeError } from '../../protocols/errors.js';
import type { Tensor } from '../../protocols/tensor.js';
import type { ForwardRequest } from '../../server/predictor-client/predictor-client.js';
import { createPredictorClient } from '../../server/predictor-client/predictor-clients.js';

const KiB = 1024;
const BUDGET = 1024 * KiB;
const input: Tensor = { name: 'x', datatype: 'FP32', shape: [1, 1], data: Float32Array.of(1) };
const forward: ForwardRequest = { modelName: 'm', id: 'r', parameters: undefined, inputs: [input], outputs: [], headers: {}, signal: undefined };

/** Open answers: each has sent `{"predictions":[1]` and `pad` spaces, and waits for its `}`. */
const held: http.ServerResponse[] = [];
let pad = 700 * KiB;
let holdAnswers = true;
let server: http.Server;
let host = '';
beforeAll(async () => {
  server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(`{"predictions":[1]${' '.repeat(pad)}`);
      if (holdAnswers) held.push(res);
      else res.end('}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const client = () => createPredictorClient({ host, protocol: 'v1', requestTimeoutSeconds: 60, maxInflightAnswerBytes: BUDGET });
const outcome = (p: Promise<unknown>) =>
  p.then(
    () => 'ok',
    (e: unknown) => (e instanceof KServeError ? `${e.kind}: ${e.message}` : `not a catalogue error: ${String(e)}`),
  );

it('two answers held open at once that pass the budget together: one is refused with 503 ServerBusy naming the limit, the other completes, and the budget is free again after', async () => {
  const c = client();
  try {
    const a = outcome(c.infer(forward));
    const b = outcome(c.infer(forward));
    // Neither answer ends until the test says so: 1.4 MiB held at once must pass 1 MiB, whatever the order.
    const first = await Promise.race([a, b]);
    expect(first).toMatch(
      /^ServerBusy: Server is busy: the transformer already holds \d+ bytes of predictor answers \(limit --predictor_max_inflight_answer_bytes 1048576\); retry later\.$/,
    );
    for (const res of held.splice(0)) res.end('}');
    expect([await a, await b].sort()).toEqual([first, 'ok'].sort());
    holdAnswers = false;
    expect(await outcome(c.infer(forward))).toBe('ok');
    expect(await outcome(c.infer(forward))).toBe('ok');
  } finally {
    await c.close();
  }
});

it('one answer larger than the budget is refused alike; a budget of 0 is no limit', async () => {
  holdAnswers = false;
  pad = 1536 * KiB;
  const c = client();
  const unlimited = createPredictorClient({ host, protocol: 'v1', requestTimeoutSeconds: 60, maxInflightAnswerBytes: 0 });
  try {
    expect(await outcome(c.infer(forward))).toMatch(/^ServerBusy: .*predictor answers/);
    expect(await outcome(unlimited.infer(forward))).toBe('ok');
  } finally {
    await Promise.all([c.close(), unlimited.close()]);
  }
});

/**
 * CloudEvents on V1 and V2 REST against a real server on loopback: binary mode (ce-*
 * headers, body = data) and structured mode (application/cloudevents+json), each answered
 * in kind as KServe's server does; invalid events are 400; plain requests are unchanged.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HTTP, CloudEvent } from 'cloudevents';
import { IRIS_DIR, type TestServer, startServer } from '../helpers/server.js';

const ROWS = [
  [6.8, 2.8, 4.8, 1.4],
  [5.1, 3.5, 1.4, 0.2],
];
const V1_BODY = { instances: ROWS };
const V2_BODY = { inputs: [{ name: 'input', shape: [2, 4], datatype: 'FP32', data: ROWS }], outputs: [{ name: 'label' }] };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let s: TestServer;
beforeAll(async () => {
  s = await startServer(['--model_name', 'iris', '--model_dir', IRIS_DIR]);
});
afterAll(async () => {
  await s.close();
});

const routes = [
  { protocol: 'V1', path: '/v1/models/iris:predict', body: V1_BODY, answer: (b: unknown) => (b as { predictions: number[] }).predictions },
  { protocol: 'V2', path: '/v2/models/iris/infer', body: V2_BODY, answer: (b: unknown) => (b as { outputs: { data: number[] }[] }).outputs[0]?.data },
] as const;

describe.each(routes)('$protocol', ({ path, body, answer }) => {
  it('plain JSON answers without CloudEvent headers', async () => {
    const res = await fetch(`${s.url}${path}`, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('ce-id')).toBeNull();
    expect(answer(await res.json())).toEqual([1, 0]);
  });

  it('binary mode: the data is served, the answer is a binary event', async () => {
    const event = new CloudEvent({ id: 'req-1', source: 'urn:test', type: 'org.example.infer', datacontenttype: 'application/json', data: body });
    const msg = HTTP.binary(event);
    const res = await fetch(`${s.url}${path}`, { method: 'POST', body: msg.body as string, headers: msg.headers as Record<string, string> });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.get('ce-specversion')).toBe('1.0');
    expect(res.headers.get('ce-type')).toBe('io.kserve.inference.response');
    expect(res.headers.get('ce-source')).toBe('io.kserve.inference.iris');
    expect(res.headers.get('ce-id')).toMatch(UUID);
    expect(Number.isNaN(Date.parse(res.headers.get('ce-time') ?? ''))).toBe(false);
    const text = await res.text();
    const answered = HTTP.toEvent({ headers: Object.fromEntries(res.headers), body: text }) as CloudEvent<unknown>;
    expect(answered.type).toBe('io.kserve.inference.response');
    expect(answer(JSON.parse(text))).toEqual([1, 0]);
  });

  it('structured mode: the data is served, the answer is a structured event', async () => {
    const event = new CloudEvent({ id: 'req-2', source: 'urn:test', type: 'org.example.infer', datacontenttype: 'application/json', data: body });
    const msg = HTTP.structured(event);
    const res = await fetch(`${s.url}${path}`, { method: 'POST', body: msg.body as string, headers: msg.headers as Record<string, string> });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/cloudevents+json');
    expect(res.headers.get('ce-id')).toBeNull();
    const text = await res.text();
    const answered = HTTP.toEvent({ headers: Object.fromEntries(res.headers), body: text }) as CloudEvent<unknown>;
    expect(answered.specversion).toBe('1.0');
    expect(answered.type).toBe('io.kserve.inference.response');
    expect(answered.source).toBe('io.kserve.inference.iris');
    expect(answered.id).toMatch(UUID);
    expect(answered.id).not.toBe('req-2');
    expect(answered.datacontenttype).toBe('application/json');
    expect(answer(answered.data)).toEqual([1, 0]);
  });

  it('structured mode with data as a JSON string or data_base64', async () => {
    const attrs = { specversion: '1.0', id: 'x', source: 'urn:test', type: 't' };
    for (const event of [
      { ...attrs, data: JSON.stringify(body) },
      { ...attrs, data_base64: Buffer.from(JSON.stringify(body)).toString('base64') },
    ]) {
      const res = await fetch(`${s.url}${path}`, { method: 'POST', body: JSON.stringify(event), headers: { 'content-type': 'application/cloudevents+json' } });
      expect(res.status).toBe(200);
      expect(answer((JSON.parse(await res.text()) as { data: unknown }).data)).toEqual([1, 0]);
    }
  });

  // Structured mode hands the codec the data as the client wrote it, as binary mode does:
  // the same answer for the same data, the codec's depth limit included (#27 item 5).
  const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);
  const binaryHeaders = { 'ce-specversion': '1.0', 'ce-id': 'a', 'ce-source': 'urn:x', 'ce-type': 't', 'content-type': 'application/json' };
  it.each([
    ['an array nested 100,000 deep', deep(100_000), 400],
    ['an object nested 100,000 deep', `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`, 400],
    ['V2 data nested 100,000 deep', `{"inputs":[{"name":"input","shape":[1,4],"datatype":"FP32","data":${deep(100_000)}}]}`, 400],
    ['V1 instances nested 100,000 deep', `{"instances":${deep(100_000)}}`, 400],
    // Re-serialised, 1e400 would become null (a 400); as sent it is +Infinity, a valid FP32.
    ['a number beyond FP64', `{"instances":[[1e400,1,1,1]],"inputs":[{"name":"input","shape":[1,4],"datatype":"FP32","data":[1e400,1,1,1]}]}`, 200],
  ])('structured mode: %s is answered as in binary mode', async (_name, data, status) => {
    const structured = await fetch(`${s.url}${path}`, {
      method: 'POST',
      body: `{"specversion":"1.0","id":"a","source":"urn:x","type":"t","data":${data}}`,
      headers: { 'content-type': 'application/cloudevents+json' },
    });
    const binary = await fetch(`${s.url}${path}`, { method: 'POST', body: data, headers: binaryHeaders });
    const [sText, bText] = [await structured.text(), await binary.text()];
    expect([structured.status, binary.status]).toEqual([status, status]);
    if (status === 400) expect(sText).toBe(bText);
    else expect(answer(JSON.parse(sText).data)).toEqual(answer(JSON.parse(bText)));
  });

  const bad: [string, Record<string, string>, string][] = [
    ['binary: unknown spec version', { 'ce-specversion': '9.9', 'ce-id': 'a', 'ce-source': 'urn:x', 'ce-type': 't', 'content-type': 'application/json' }, JSON.stringify(body)],
    ['binary: empty source', { 'ce-specversion': '1.0', 'ce-id': 'a', 'ce-source': '', 'ce-type': 't', 'content-type': 'application/json' }, JSON.stringify(body)],
    ['binary: data that is not JSON', { 'ce-specversion': '1.0', 'ce-id': 'a', 'ce-source': 'urn:x', 'ce-type': 't', 'content-type': 'application/json' }, '{"instances": [[1,'],
    ['structured: not JSON', { 'content-type': 'application/cloudevents+json' }, '{"specversion":'],
    ['structured: an array', { 'content-type': 'application/cloudevents+json' }, '[1]'],
    ['structured: no id', { 'content-type': 'application/cloudevents+json' }, JSON.stringify({ specversion: '1.0', source: 'urn:x', type: 't', data: body })],
    ['structured: no data', { 'content-type': 'application/cloudevents+json' }, JSON.stringify({ specversion: '1.0', id: 'a', source: 'urn:x', type: 't' })],
    [
      'structured: data_base64 not a string',
      { 'content-type': 'application/cloudevents+json' },
      JSON.stringify({ specversion: '1.0', id: 'a', source: 'urn:x', type: 't', data_base64: 5 }),
    ],
  ];
  it.each(bad)('%s is a 400 with a message', async (_name, headers, text) => {
    const res = await fetch(`${s.url}${path}`, { method: 'POST', body: text, headers });
    expect(res.status).toBe(400);
    const err = (await res.json()) as { error: string };
    expect(typeof err.error).toBe('string');
    expect(err.error.length).toBeGreaterThan(0);
    expect(res.headers.get('ce-id')).toBeNull();
  });
});

describe('V2 binary tensor extension in a structured event', () => {
  it('answers binary outputs as data_base64', async () => {
    const req = { ...V2_BODY, outputs: [{ name: 'label', parameters: { binary_data: true } }] };
    const event = { specversion: '1.0', id: 'b', source: 'urn:test', type: 't', data: req };
    const res = await fetch(`${s.url}/v2/models/iris/infer`, { method: 'POST', body: JSON.stringify(event), headers: { 'content-type': 'application/cloudevents+json' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('inference-header-content-length')).toBeNull();
    const answered = JSON.parse(await res.text()) as { datacontenttype: string; data_base64: string };
    expect(answered.datacontenttype).toBe('application/octet-stream');
    const bytes = Buffer.from(answered.data_base64, 'base64');
    const header = JSON.parse(bytes.subarray(0, bytes.indexOf('}]}') + 3).toString('utf8')) as { outputs: { name: string; parameters: { binary_data_size: number } }[] };
    expect(header.outputs[0]?.name).toBe('label');
    expect(header.outputs[0]?.parameters.binary_data_size).toBeGreaterThan(0);
  });
});

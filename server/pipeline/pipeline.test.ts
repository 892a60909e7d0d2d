/**
 * The pipeline's streaming shape, through a real server and a real ONNX session: a verb whose
 * run answers with a sequence has each item encoded as it comes, and the model version stays
 * leased (an unload waits) until the sequence ends or its consumer stops early.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { IRIS_DIR, type TestServer, startServer } from '../../test/helpers/server.js';
import type { InferResponse, Tensor } from '../../protocols/tensor.js';
import type { Codec, Decoded, WireMessage } from './codec.js';
import type { Verb } from './verbs.js';

let t: TestServer | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const flower = (values: number[]): Tensor => ({ name: 'input', datatype: 'FP32', shape: [1, 4], data: new Float32Array(values) });

/** Answers each of the request's flowers in turn, one inference each. */
const perFlower: Verb<AsyncIterable<InferResponse>> = {
  stage: 'predict',
  admit() {},
  async run(served, model, request, id, context) {
    async function* answers(): AsyncGenerator<InferResponse> {
      for (const input of request.inputs) {
        const outputs = await served.instance.infer([flower([...(input.data as Float32Array)])], ['label'], undefined, context);
        yield { id, modelName: model.name, modelVersion: served.version, outputs };
      }
    }
    return answers();
  },
};

const codec: Codec<number[][], Decoded, InferResponse, WireMessage> = {
  decode: (flowers) => ({ request: { inputs: flowers.map(flower) } }),
  encode: (response) => ({ body: JSON.stringify(Array.from(response.outputs[0]?.data as ArrayLike<number | bigint>, Number)), contentType: 'application/json' }),
};

async function open(flowers: number[][]) {
  t = await startServer(['--model_name', 'iris', '--model_dir', IRIS_DIR, '--grace_period_seconds', '300']);
  const { server } = t;
  const answer = await server.dataplane.stream({ name: 'iris', version: undefined, transport: 'rest', verb: perFlower, codec, input: flowers, headers: {} });
  return { server, iterator: answer.messages[Symbol.asyncIterator]() };
}

describe('Pipeline.stream', () => {
  it('encodes each answer as it comes and holds the version until the sequence ends', async () => {
    const { server, iterator } = await open([
      [6.8, 2.8, 4.8, 1.4],
      [5.1, 3.5, 1.4, 0.2],
    ]);
    const events: string[] = [];
    expect((await iterator.next()).value).toEqual({ body: '[1]', contentType: 'application/json' });
    const unloaded = server.repository.unload('iris').then(() => events.push('unloaded'));
    // The second inference runs on the version an unload is waiting for.
    expect((await iterator.next()).value).toEqual({ body: '[0]', contentType: 'application/json' });
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
    events.push('ended');
    await unloaded;
    expect(events).toEqual(['ended', 'unloaded']);
  });

  it('releases the version when the consumer stops early', async () => {
    const { server, iterator } = await open([
      [6.8, 2.8, 4.8, 1.4],
      [5.1, 3.5, 1.4, 0.2],
    ]);
    expect((await iterator.next()).done).toBe(false);
    const events: string[] = [];
    const unloaded = server.repository.unload('iris').then(() => events.push('unloaded'));
    await iterator.return?.(undefined);
    events.push('stopped');
    await unloaded;
    expect(events).toEqual(['stopped', 'unloaded']);
    expect(server.dataplane.listModels()).toEqual([]);
  });
});

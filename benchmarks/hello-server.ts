/**
 * The framework ceilings: a bare fastify server with a hello-world route, a POST route that
 * reads a body and answers a fixed V2-sized JSON response (the same traffic shape as an
 * inference, without any inference work), and, given an ONNX file, a bare V2 JSON inference
 * route: fastify's own JSON parser, the first input's `data` into a Float32Array, the same
 * onnxruntime-node session kserve-ts runs (one intra-op thread) called on the event loop's
 * thread pool, the outputs written back as V2 JSON. No validation, no repository, no worker
 * threads: what serving this model over V2 JSON costs at the least on this framework.
 *
 *   node --import tsx benchmarks/hello-server.ts PORT [MODEL.onnx]
 */
import Fastify from 'fastify';
import ort from 'onnxruntime-node';

const app = Fastify({ logger: false, bodyLimit: 64 * 1024 * 1024 });
app.get('/', async () => ({ hello: 'world' }));
const fixed = Buffer.from(
  '{"model_name":"mlp","model_version":null,"id":"0f3e3e0e-1234-4bcd-9abc-0123456789ab","parameters":null,' +
    '"outputs":[{"name":"output","shape":[1,8],"datatype":"FP32","parameters":null,' +
    '"data":[0.1234567,0.2345678,0.3456789,0.4567891,0.5678912,0.6789123,0.7891234,0.8912345]}]}',
);
app.post('/echo', async (_req, reply) => reply.type('application/json').send(fixed));

interface V2Body {
  inputs: Array<{ name: string; shape: number[]; data: number[] }>;
}

const modelFile = process.argv[3];
if (modelFile !== undefined) {
  const session = await ort.InferenceSession.create(modelFile, { intraOpNumThreads: 1, interOpNumThreads: 1 });
  app.post<{ Params: { model: string }; Body: V2Body }>('/v2/models/:model/infer', async (req) => {
    const input = req.body.inputs[0];
    if (input === undefined) throw new Error('no input');
    const result = await session.run({ [input.name]: new ort.Tensor('float32', Float32Array.from(input.data), input.shape) });
    return {
      model_name: req.params.model,
      outputs: Object.entries(result).map(([name, t]) => ({ name, shape: t.dims, datatype: 'FP32', data: Array.from(t.data as Float32Array) })),
    };
  });
}

await app.listen({ host: '127.0.0.1', port: Number(process.argv[2] ?? 0) });
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));

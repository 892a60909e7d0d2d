/**
 * The framework ceilings: a bare fastify server with a hello-world route, and a POST route
 * that reads a body and answers a fixed V2-sized JSON response (the same traffic shape as an
 * inference, without any inference work).
 *
 *   node --import tsx benchmarks/hello-server.ts PORT
 */
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.get('/', async () => ({ hello: 'world' }));
const fixed = Buffer.from(
  '{"model_name":"mlp","model_version":null,"id":"0f3e3e0e-1234-4bcd-9abc-0123456789ab","parameters":null,' +
    '"outputs":[{"name":"output","shape":[1,8],"datatype":"FP32","parameters":null,' +
    '"data":[0.1234567,0.2345678,0.3456789,0.4567891,0.5678912,0.6789123,0.7891234,0.8912345]}]}',
);
app.post('/echo', async (_req, reply) => reply.type('application/json').send(fixed));
await app.listen({ host: '127.0.0.1', port: Number(process.argv[2] ?? 0) });
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));

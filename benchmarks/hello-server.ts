/** The framework ceiling: a bare fastify server with one hello-world route. Prints its port. */
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.get('/', async () => ({ hello: 'world' }));
await app.listen({ host: '127.0.0.1', port: 0 });
const addr = app.server.address();
process.stdout.write(`${JSON.stringify({ port: typeof addr === 'object' && addr ? addr.port : 0 })}\n`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));

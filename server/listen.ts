/**
 * Binds every listener of a model server: REST (or HTTPS) on --http_port, then gRPC on
 * --grpc_port. Readiness is held until all are bound; a port that cannot be bound rejects
 * with a ListenError naming the listener (cli/listen-error.ts) and readiness stays false.
 * The caller stops the server: main.ts exits non-zero, the SDK closes it.
 */
import { listenOrFail } from '../cli/listen-error.js';
import type { ModelServer } from './server.js';

export interface BoundPorts {
  readonly http: number;
  /** Undefined when gRPC is off. */
  readonly grpc: number | undefined;
}

export async function listen(server: ModelServer): Promise<BoundPorts> {
  const { config, http, grpc } = server;
  const release = server.dataplane.hold();
  const tls = config.tls !== undefined;
  await listenOrFail(tls ? 'HTTPS' : 'REST', '--http_port', config.httpHost, config.httpPort, () =>
    http.listen({
      host: config.httpHost,
      port: config.httpPort,
      // fastify names the scheme from its own `https` option, which an HTTPS server made by
      // our serverFactory (http/tls.ts) does not set.
      ...(tls ? { listenTextResolver: (address: string) => `Server listening at ${address.replace(/^http:/, 'https:')}` } : {}),
    }),
  );
  const address = http.server.address();
  const httpPort = typeof address === 'object' && address !== null ? address.port : config.httpPort;
  const grpcPort =
    grpc === undefined ? undefined : await listenOrFail('gRPC', '--grpc_port', config.httpHost, config.grpcPort, () => grpc.listen(config.httpHost, config.grpcPort));
  release();
  return { http: httpPort, grpc: grpcPort };
}

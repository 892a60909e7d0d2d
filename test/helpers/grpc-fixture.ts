/**
 * The fixture many suites share: a Triton-style repository from a layout, a real server on
 * it with gRPC on, and a gRPC client, made in beforeAll and torn down in afterAll of the
 * calling suite. Read its fields inside tests or hooks, never at definition time.
 */
import { afterAll, beforeAll } from 'vitest';
import type { BackendRegistry } from '../../server/backend/backend-registry.js';
import { type GrpcTestClient, grpcClient } from '../grpc/client.js';
import { type TestServer, makeRepository, startServer } from './server.js';

export interface GrpcFixture {
  readonly server: TestServer;
  readonly client: GrpcTestClient;
  /** The repository folder. */
  readonly dir: string;
}

export function useGrpcFixture(layout: Parameters<typeof makeRepository>[0], flags: readonly string[] = [], opts: { backends?: () => BackendRegistry } = {}): GrpcFixture {
  let repo: ReturnType<typeof makeRepository> | undefined;
  let server: TestServer | undefined;
  let client: GrpcTestClient | undefined;
  beforeAll(async () => {
    repo = makeRepository(layout);
    server = await startServer(['--model_repository', repo.dir, ...flags], { grpc: true, ...(opts.backends ? { backends: opts.backends() } : {}) });
    client = grpcClient(server.grpcAddress as string);
  });
  afterAll(async () => {
    client?.close();
    await server?.close();
    repo?.cleanup();
  });
  const ready = <T>(v: T | undefined, what: string): T => {
    if (v === undefined) throw new Error(`the gRPC fixture's ${what} is read before beforeAll ran`);
    return v;
  };
  return {
    get server() {
      return ready(server, 'server');
    },
    get client() {
      return ready(client, 'client');
    },
    get dir() {
      return ready(repo, 'repository').dir;
    },
  };
}

/** kserve-ts's router in-process on loopback ports, for one graph. */
import { pino } from 'pino';
import { type RouterApp, buildRouter } from '../../router/app.js';
import { routerConfig } from '../../router/config.js';

export interface RunningRouter {
  readonly app: RouterApp;
  /** http://127.0.0.1:PORT */
  readonly url: string;
  /** 127.0.0.1:PORT */
  readonly grpc: string;
  close(): Promise<void>;
}

export async function startRouter(graph: unknown, opts: { env?: NodeJS.ProcessEnv; flags?: readonly string[] } = {}): Promise<RunningRouter> {
  const config = routerConfig(['--graph-json', JSON.stringify(graph), '--http_host', '127.0.0.1', '--http_port', '0', '--grpc_port', '0', ...(opts.flags ?? [])], opts.env ?? {});
  if (config === 'help') throw new Error('unexpected help');
  const app = buildRouter(config, pino({ level: process.env['TEST_LOG_LEVEL'] ?? 'silent' }));
  const ports = await app.listen();
  return { app, url: `http://127.0.0.1:${ports.http}`, grpc: `127.0.0.1:${ports.grpc}`, close: () => app.close() };
}

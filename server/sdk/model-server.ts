/**
 * KServe's `kserve.ModelServer` in TypeScript: serves SDK models next to file-backed ones
 * (ONNX, TensorFlow from `modelRepository` or `modelDir`) on the same V1, V2 REST and gRPC
 * endpoints, health, metrics and repository routes. It is createServer (server/server.ts)
 * with the SDK models handed to the repository as provided models; transports never see
 * the SDK.
 *
 * Unlike Python's blocking `start`, `start` resolves once the listeners are bound and every
 * model has loaded (or failed: see `repository.state`); `stop` drains and unloads. Signals
 * are the embedder's: call `stop` from a SIGTERM handler (the CLI, `kserve-ts serve`, does).
 */
import type { Logger } from 'pino';
import { parseServeArgs } from '../config.js';
import { listen } from '../listen.js';
import { createLogger } from '../logger.js';
import type { ModelRepository } from '../repository/model-repository.js';
import { type ModelServer as CoreServer, createServer, defaultBackends } from '../server.js';
import type { ProvidedModel } from '../backend/backend.js';
import { providedModel } from '../backends/custom/model-adapter.js';
import type { Model } from '../backends/custom/model.js';

export interface ModelServerOptions {
  /** REST port (KServe's http_port; default 8080; 0 = any free port, see `httpPort`). */
  readonly httpPort?: number;
  /** gRPC port (default 8081; 0 = any free port). */
  readonly grpcPort?: number;
  readonly enableGrpc?: boolean;
  /** Address the listeners bind (default 0.0.0.0). */
  readonly httpHost?: string;
  /** File-backed models to serve as well: a Triton-layout folder (one sub-folder per model). */
  readonly modelRepository?: string;
  readonly logLevel?: string;
  /** Any other `kserve-ts serve` flags, e.g. ['--max_queued_requests', '64']. */
  readonly args?: readonly string[];
  /** Log here instead of stdout. */
  readonly logger?: Logger;
}

export class ModelServer {
  readonly #options: ModelServerOptions;
  #server: CoreServer | undefined;
  #httpPort = 0;
  #grpcPort: number | undefined;

  constructor(options: ModelServerOptions = {}) {
    this.#options = options;
  }

  /** Binds the listeners and loads `models` (and the repository's). Rejects for invalid options. */
  async start(models: readonly Model[]): Promise<void> {
    if (this.#server !== undefined) throw new Error('ModelServer already started');
    const o = this.#options;
    const argv = [
      ...(o.httpPort !== undefined ? ['--http_port', String(o.httpPort)] : []),
      ...(o.grpcPort !== undefined ? ['--grpc_port', String(o.grpcPort)] : []),
      ...(o.enableGrpc !== undefined ? [`--enable_grpc=${o.enableGrpc}`] : []),
      ...(o.httpHost !== undefined ? ['--http_host', o.httpHost] : []),
      ...(o.modelRepository !== undefined ? ['--model_repository', o.modelRepository] : []),
      ...(o.logLevel !== undefined ? ['--log_level', o.logLevel] : []),
      ...(o.args ?? []),
    ];
    const backends = defaultBackends();
    const { config } = parseServeArgs(argv, {}, backends.flags());
    const logger = o.logger ?? createLogger(config.logLevel);
    const provided = new Map<string, ProvidedModel>();
    for (const m of models) {
      if (provided.has(m.name)) throw new Error(`two models are named '${m.name}'`);
      provided.set(m.name, providedModel(m));
    }
    const server = await createServer(config, logger, { backends, provided });
    this.#server = server;
    const loading = server.repository.loadStartupModels();
    try {
      const ports = await listen(server);
      this.#httpPort = ports.http;
      this.#grpcPort = ports.grpc;
    } catch (e) {
      // A port that cannot be bound (a ListenError naming it) stops what was started.
      await loading.catch(() => undefined);
      await server.close();
      this.#server = undefined;
      throw e;
    }
    await loading;
  }

  /** The bound REST port (the real one when 0 was asked for). */
  get httpPort(): number {
    return this.#httpPort;
  }

  /** The bound gRPC port; undefined when gRPC is off or the server has not started. */
  get grpcPort(): number | undefined {
    return this.#grpcPort;
  }

  /** The served models and their states (KServe's ModelRepository). */
  get repository(): ModelRepository {
    if (this.#server === undefined) throw new Error('ModelServer not started');
    return this.#server.repository;
  }

  /** Drains in-flight requests (bounded by --grace_period_seconds) and unloads every model. */
  async stop(): Promise<void> {
    await this.#server?.close();
  }
}

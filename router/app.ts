/**
 * Builds the router from its configuration: the HTTP side, the gRPC side, the step
 * clients they share, metrics and readiness. Nothing listens until `listen`; main.ts
 * and the tests decide where.
 */
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { RouterConfig } from './config.js';
import { serviceUrls } from './graph-spec.js';
import { type GrpcFront, buildGrpcFront } from './grpc/grpc-front.js';
import { StepChannels } from './grpc/step-channels.js';
import { RouterMetrics } from './metrics.js';
import { StepReadiness } from './readiness.js';
import { buildHttpFront } from './rest/http-front.js';
import { StepPools } from './rest/rest-wire.js';

export interface RouterApp {
  readonly metrics: RouterMetrics;
  /** Binds both sides (port 0 picks a free one); resolves with the bound ports. */
  listen(): Promise<{ http: number; grpc: number | undefined }>;
  /** Readiness fails from now on (KServe's drain: the endpoints drop the pod). */
  startDraining(): void;
  /** Stops accepting, lets requests in flight finish, closes step connections. */
  close(): Promise<void>;
}

export function buildRouter(config: RouterConfig, logger: Logger): RouterApp {
  const metrics = new RouterMetrics();
  const steps = new StepReadiness(serviceUrls(config.spec));
  let draining = false;
  const readiness = async (): Promise<{ ready: boolean; reason: string }> => {
    if (draining) return { ready: false, reason: 'shutting down' };
    if (!config.readinessFollowsSteps) return { ready: true, reason: '' };
    const s = await steps.check();
    return { ready: s.ready, reason: s.ready ? '' : `steps not ready: ${s.notReady.join(', ')}` };
  };
  const propagate = config.propagate.patterns;
  const pools = new StepPools(config.serviceClientSeconds);
  const channels = new StepChannels(config.stepGrpcPort, config.stepGrpcTargets);
  const httpServer: http.Server = buildHttpFront({
    spec: config.spec,
    pools,
    metrics,
    logger,
    propagate,
    maxBodyBytes: config.maxBodyBytes,
    timeouts: { readSeconds: config.serverReadSeconds, writeSeconds: config.serverWriteSeconds, idleSeconds: config.serverIdleSeconds },
    readiness,
  });
  const grpcFront: GrpcFront | undefined = config.enableGrpc
    ? buildGrpcFront({
        spec: config.spec,
        channels,
        metrics,
        logger,
        propagate,
        stepTimeoutMs: config.serviceClientSeconds === undefined ? undefined : config.serviceClientSeconds * 1000,
        maxMessageBytes: config.maxBodyBytes,
        readiness,
      })
    : undefined;

  return {
    metrics,
    async listen() {
      await new Promise<void>((resolve, reject) => {
        httpServer.once('error', reject);
        httpServer.listen(config.httpPort, config.httpHost, () => resolve());
      });
      const httpPort = (httpServer.address() as AddressInfo).port;
      const grpcPort = grpcFront === undefined ? undefined : await grpcFront.listen(config.httpHost, config.grpcPort);
      return { http: httpPort, grpc: grpcPort };
    },
    startDraining() {
      draining = true;
    },
    async close() {
      draining = true;
      await Promise.all([
        new Promise<void>((resolve) => {
          httpServer.close(() => resolve());
          httpServer.closeIdleConnections();
        }),
        grpcFront?.close(),
      ]);
      await pools.close();
      channels.close();
    },
  };
}

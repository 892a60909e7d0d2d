/** What the gRPC services need from the server core; built once in grpc-server.ts. */
import type { Logger } from 'pino';
import type { DecodeLimits } from '../../protocols/limits.js';
import type { DataPlane } from '../dataplane.js';
import type { Metrics } from '../metrics.js';

export interface GrpcContext {
  readonly dataplane: DataPlane;
  readonly metrics: Metrics;
  readonly logger: Logger;
  /** Largest response message (bytes); -1 for no limit. */
  readonly maxSendMessageLength: number;
  /** What one request may declare (protocols/limits.ts); defaults when absent. */
  readonly decodeLimits?: DecodeLimits | undefined;
}

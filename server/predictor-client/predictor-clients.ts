/** The predictor clients by `--predictor_protocol` name (KServe's: v1, v2, grpc-v2). */
import { grpcV2Client } from './grpc-v2-client.js';
import type { PredictorClient, PredictorClientFactory } from './predictor-client.js';
import { type PredictorConfig, type PredictorProtocol, resolvePredictorConfig } from './predictor-config.js';
import { v1Client } from './v1-client.js';
import { v2RestClient } from './v2-rest-client.js';

const CLIENTS: ReadonlyMap<PredictorProtocol, PredictorClientFactory> = new Map<PredictorProtocol, PredictorClientFactory>([
  ['v1', v1Client],
  ['v2', v2RestClient],
  ['grpc-v2', grpcV2Client],
]);

/** A client for `config.protocol`, with KServe's defaults filled in; connections open lazily. */
export function createPredictorClient(config: PredictorConfig): PredictorClient {
  const resolved = resolvePredictorConfig(config);
  const factory = CLIENTS.get(resolved.protocol);
  if (factory === undefined) throw new Error(`unknown predictor protocol '${resolved.protocol}'; known: ${[...CLIENTS.keys()].join(', ')}`);
  return factory(resolved);
}

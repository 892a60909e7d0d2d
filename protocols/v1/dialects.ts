/** V1 dialects keyed by model platform; KServe's convention for every other platform. */
import { decodeV1Request, encodeV1Response } from './codec.js';
import type { V1Dialect } from './dialect.js';
import { tfServingDialect } from './tf-serving.js';

export const kserveDialect: V1Dialect = {
  name: 'kserve',
  decode: (doc, model, limits) => ({ request: decodeV1Request(doc, model.inputs, limits) }),
  encode: (response) => encodeV1Response(response),
};

// A Map so that platform strings can never hit Object.prototype members.
const BY_PLATFORM = new Map<string, V1Dialect>([
  ['tensorflow_savedmodel', tfServingDialect],
  ['tensorflow_tfjs', tfServingDialect],
]);

export function v1DialectFor(platform: string): V1Dialect {
  return BY_PLATFORM.get(platform) ?? kserveDialect;
}

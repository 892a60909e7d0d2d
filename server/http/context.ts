/** What the HTTP routes need from the server core; built once and passed to every plugin. */
import type { DataPlane } from '../dataplane.js';
import type { ServerLimits } from '../limits.js';
import type { Metrics } from '../metrics.js';

export interface HttpContext {
  readonly dataplane: DataPlane;
  readonly metrics: Metrics;
  readonly enableDocsUrl: boolean;
  /** Timeouts, sizes, what a request may declare (server/limits.ts); defaults when absent. */
  readonly limits?: ServerLimits | undefined;
  /** Where the OpenAI-compatible routes live (`/openai`; --openai_route_prefix); absent: not served. */
  readonly openaiRoutePrefix?: string | undefined;
}

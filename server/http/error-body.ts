/**
 * The body an error is sent with, chosen by the request's path: KServe's `{"error": msg}`
 * everywhere, OpenAI's `{"error": {message, type, param, code}}` under the OpenAI routes'
 * prefix, so a client of either API reads its own shape whatever failed (a route's error,
 * a 404, a 405, a body parser's refusal).
 */
import type { KServeError } from '../../protocols/errors.js';
import { openAiError } from '../../protocols/openai/openai-error.js';

export type ErrorBody = (err: KServeError) => string;

const kserveBody: ErrorBody = (err) => JSON.stringify({ error: err.message });
const openAiBody: ErrorBody = (err) => JSON.stringify(openAiError(err));

/** The body writer for a request path (without query); `openaiPrefix` as configured, undefined when those routes are off. */
export function errorBodyFor(openaiPrefix: string | undefined): (path: string) => ErrorBody {
  if (openaiPrefix === undefined) return () => kserveBody;
  return (path) => (path === openaiPrefix || path.startsWith(`${openaiPrefix}/`) ? openAiBody : kserveBody);
}

/**
 * OpenAI's error body, `{"error": {"message", "type", "param", "code"}}`, from a catalogue
 * error: the type is the kind's OpenAI class (protocols/errors.ts), the code the kind's name
 * in snake case (`model_not_found`), as OpenAI's clients read both.
 */
import type { KServeError } from '../errors.js';

export interface OpenAiErrorBody {
  readonly error: { readonly message: string; readonly type: string; readonly param: string | null; readonly code: string };
}

const snake = (kind: string): string => kind.replace(/[A-Z]/g, (c, i: number) => (i === 0 ? '' : '_') + c.toLowerCase());

export function openAiError(err: KServeError): OpenAiErrorBody {
  return { error: { message: err.message, type: err.openaiType, param: err.param ?? null, code: snake(err.kind) } };
}

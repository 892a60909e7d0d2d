/**
 * What a thrown value says, bounded, without running its code more than once: the text a
 * user's error puts into a 500 body and a log line. A message of any length would otherwise
 * be echoed whole (a 10 MB message made a 41 MB log from 4 requests: the message twice per
 * line, once in the stack), and String() of an object without a prototype throws
 * "Cannot convert object to primitive value".
 */

/** Characters of a thrown value's message kept for a client and a log line. */
export const MAX_ERROR_MESSAGE_CHARS = 4096;
/** Characters of a stack's frames kept for a log line. */
const MAX_STACK_CHARS = 4096;

/** `text` cut to `max` characters, saying how much was left out. */
export function boundedText(text: string, max = MAX_ERROR_MESSAGE_CHARS): string {
  return text.length <= max ? text : `${text.slice(0, max)}... (${text.length - max} more characters)`;
}

export interface ThrownText {
  /** The Error's name; 'Error' for anything else thrown. */
  readonly type: string;
  /** Its message, bounded. */
  readonly message: string;
  /** Its stack frames (without the message the stack repeats), bounded; none for a non-Error. */
  readonly stack?: string;
}

/** A value's own `key` as a string, or undefined; a throwing getter or proxy counts as none. */
function stringProperty(value: object, key: string): string | undefined {
  try {
    const v: unknown = (value as Record<string, unknown>)[key];
    return typeof v === 'string' ? v : undefined;
  } catch {
    return undefined;
  }
}

function describeValue(value: unknown): string {
  if (typeof value === 'object' && value !== null) {
    return stringProperty(value, 'message') ?? `a thrown ${Array.isArray(value) ? 'array' : 'object'} that is not an Error`;
  }
  if (typeof value === 'function') return 'a thrown function';
  if (typeof value === 'symbol') return value.toString();
  return String(value);
}

function isError(value: unknown): value is Error {
  try {
    return value instanceof Error;
  } catch {
    return false; // a proxy whose getPrototypeOf trap throws
  }
}

/** The bounded text of anything thrown. */
export function thrownText(err: unknown): ThrownText {
  if (!isError(err)) return { type: 'Error', message: boundedText(describeValue(err)) };
  const message = boundedText(stringProperty(err, 'message') ?? '');
  const stack = stringProperty(err, 'stack');
  const frames = stack === undefined ? -1 : stack.indexOf('\n    at ');
  return {
    type: stringProperty(err, 'name') ?? 'Error',
    message,
    ...(stack === undefined || frames < 0 ? {} : { stack: boundedText(stack.slice(frames + 1), MAX_STACK_CHARS) }),
  };
}

/**
 * What a JSON.parse failure may say about its input: only where it failed. V8's messages
 * quote a slice of the text (`Unexpected token 'A', "{"key": AKIA..." is not valid JSON`),
 * and the text may be a storage secret or a pod with credentials in its env, so the quote
 * never reaches a message or a log line.
 */
export function jsonSyntaxProblem(err: unknown): string {
  const position = /position (\d+)/.exec(err instanceof Error ? err.message : '')?.[1];
  if (position !== undefined) return `not valid JSON (at position ${position})`;
  return /Unexpected end/i.test(err instanceof Error ? err.message : '') ? 'not valid JSON (it ends early)' : 'not valid JSON';
}

/** Assertions on the error catalogue for codec unit tests. */
import { expect } from 'vitest';
import { KServeError } from '../../protocols/errors.js';

/** `fn` throws an InvalidInput catalogue error whose message matches `message`. */
export function expectInvalidInput(fn: () => unknown, message: RegExp): void {
  let caught: unknown;
  try {
    fn();
  } catch (e) {
    caught = e;
  }
  expect(caught).toBeInstanceOf(KServeError);
  expect((caught as KServeError).kind).toBe('InvalidInput');
  expect((caught as KServeError).message).toMatch(message);
}

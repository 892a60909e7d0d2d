/**
 * The gjson port's public face: `get` and `valid` on byte strings, with the stock
 * modifiers registered. Import from here, never from get.ts directly.
 */
import './modifiers.js';

export { get } from './get.js';
export { valid } from './valid.js';
export { GType, Result, TYPE_NAMES } from './result.js';
export { bytesOf, fromBytes, toBytes } from './go-bytes.js';

#!/usr/bin/env node
/**
 * The InferenceGraph router's own entry point (also `kserve-ts router`): the router image
 * starts this file, so it carries neither the model server's backends nor the other
 * programs, and takes KServe's router arguments as they are (`--graph-json JSON`).
 */
import { runRouter } from '../router/main.js';

runRouter(process.argv.slice(2), process.env).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`kserve-ts router: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);

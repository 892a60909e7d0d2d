#!/usr/bin/env node
/**
 * The controller's own entry point (also `kserve-ts controller`): the controller image
 * starts this file so it carries neither the server nor the storage-initializer.
 */
import { runController } from '../controller/main.js';

runController(process.argv.slice(2), process.env).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`kserve-ts controller: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);

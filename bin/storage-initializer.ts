#!/usr/bin/env node
/** The `storage-initializer` command (also `kserve-ts storage-initializer`). */
import { storageInitializer } from '../storage-initializer/cli.js';

// If the event loop ever drains before the run settles, exit as a failure, never as 0.
process.exitCode = 1;

storageInitializer(process.argv.slice(2), process.env).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`storage-initializer: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);

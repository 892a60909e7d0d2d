#!/usr/bin/env node
/**
 * The `kserve-ts` command. Subcommands: `serve` (default when the first argument is a
 * flag, so KServe runtime args such as `--model_name=x --model_dir=/mnt/models` work as is).
 */
import { importFeature } from '../cli/optional-package.js';
import { enableCompileCache } from '../server/compile-cache.js';

// enableCompileCache caches only what is imported after it: hence the dynamic imports.
async function serve(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const main = await import('../server/main.js');
  return main.serve(argv, env);
}

const USAGE = `Usage: kserve-ts <command> [flags]

Commands:
  serve                 serve models over V1/V2 REST and V2 gRPC (kserve-ts serve --help)
  storage-initializer   download models: <src_uri> <dest_path> [...] (kserve-ts storage-initializer --help)
  controller            InferenceService controller and admission webhooks (kserve-ts controller --help)
  router                InferenceGraph router: --graph-json JSON (kserve-ts router --help)

Flags given without a command run 'serve'.`;

async function main(argv: string[]): Promise<number> {
  enableCompileCache();
  const [first, ...rest] = argv;
  if (first === undefined || first === '--help' || first === '-h' || first === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return first === undefined ? 2 : 0;
  }
  if (first === 'serve') return serve(rest, process.env);
  if (first === 'storage-initializer') {
    const { storageInitializer } = await import('../storage-initializer/cli.js');
    return storageInitializer(rest, process.env);
  }
  if (first === 'controller') {
    // @kubernetes/client-node is an optional peer dependency: a missing one is named.
    const { runController } = await importFeature('kserve-ts controller', () => import('../controller/main.js'));
    return runController(rest, process.env);
  }
  if (first === 'router') {
    const { runRouter } = await import('../router/main.js');
    return runRouter(rest, process.env);
  }
  if (first.startsWith('--')) return serve(argv, process.env);
  process.stderr.write(`kserve-ts: unknown command '${first}'\n${USAGE}\n`);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
    // A failed start has unloaded its models and closed its listeners (server/main.ts);
    // whatever else is left (a timer, a half-open socket) must not keep the process up.
    if (code !== 0) process.exit();
  },
  (err: unknown) => {
    process.stderr.write(`kserve-ts: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
    // A cluster worker's IPC channel, a listener or a loading model would keep it running.
    if (process.connected) process.disconnect();
    process.exit();
  },
);

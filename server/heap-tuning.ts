/**
 * When V8 starts incremental marking on a serving process's main thread.
 *
 * V8 starts marking once the room left below the old-generation limit is no larger than the
 * young generation's capacity, and it sets each new limit to the live size plus at least that
 * capacity plus a few MiB. A server whose old generation stays small (about 20 MiB here) while
 * large request bodies keep the young generation at its full size sits right at that edge:
 * every marking cycle ends with a limit that starts the next one. Measured on conv_small's
 * 588 KiB gRPC calls (benchmarks/RESULTS.md, performance round 3): about 57 mark-compacts per
 * 1000 calls on Node 24 and throughput at half of what the same server does without them; a
 * bare node:http2 server with no model showed the same loop (145 mark-compacts in 5 s).
 *
 * V8's two trigger flags replace that rule with a share of the limit: marking starts (as a
 * task) at `soft` percent of the limit and at once at `hard` percent. They are plain integers
 * V8 reads each time it checks, so setting them at start-up takes effect for the main thread
 * and every worker thread. A flag the operator gave Node (its command line or NODE_OPTIONS)
 * wins: nothing is set then.
 */
import v8 from 'node:v8';

/**
 * Node flags `kserve-ts serve` is launched with (the images' entrypoint, `npm start`, the
 * benchmarks), for what cannot be set once V8 is running: a young generation of at most 2 MiB
 * per semi-space. node:http2 reads each request body into fresh ArrayBuffers (588 KiB per conv
 * call), which V8 counts as external memory; with the default 16 MiB semi-spaces scavenges are
 * rare, the buffers pile up and V8 answers with full mark-compacts (26 per 4 s at c=1 on Node 24),
 * while with small ones frequent cheap scavenges free them young (1 per 4 s; conv gRPC raw 790
 * against 609 req/s, p99 3 against 12 ms; mlp rows within noise: benchmarks/RESULTS.md).
 */
export const NODE_FLAGS = ['--max-semi-space-size=2'] as const;

export const MARKING_TRIGGERS = { soft: 80, hard: 95 } as const;

const FLAG_NAMES = ['incremental-marking-soft-trigger', 'incremental-marking-hard-trigger', 'incremental-marking', 'no-incremental-marking'];

/** V8 accepts its flags with dashes or underscores. */
const normalise = (arg: string) => arg.replace(/^--/, '').split('=')[0]?.replaceAll('_', '-') ?? '';

/** True when `args` (Node's command line or NODE_OPTIONS, split) already decides when marking starts. */
export function operatorSetMarking(args: readonly string[]): boolean {
  return args.some((a) => a.startsWith('--') && FLAG_NAMES.includes(normalise(a)));
}

/**
 * Sets the trigger flags unless the operator set one of them; returns the flags it set
 * (empty when it left V8 as it was), so start-up can log what it did.
 */
export function tuneIncrementalMarking(execArgv: readonly string[], nodeOptions: string | undefined): string[] {
  if (operatorSetMarking([...execArgv, ...(nodeOptions?.split(/\s+/) ?? [])])) return [];
  const flags = [`--incremental-marking-soft-trigger=${MARKING_TRIGGERS.soft}`, `--incremental-marking-hard-trigger=${MARKING_TRIGGERS.hard}`];
  for (const f of flags) v8.setFlagsFromString(f);
  return flags;
}

/**
 * The transformer-hop workload (issue 17): mlp_64x8 batch 1 behind a pass-through
 * transformer vs the same predictor alone, kserve-ts (TS transformer → kserve-ts predictor)
 * side by side with KServe's Python transformer → KServe's Python predictor, over V2 JSON
 * (hop over V2 REST) and gRPC typed (hop over gRPC).
 *
 * Every server of both sides runs at once, for the whole workload, and rows alternate ours
 * and the anchor's, alone and behind the transformer, so that drift on a shared machine hits
 * them alike. Pinned runs put predictors and transformers on CPU 1 together: a hop costs
 * what a second process on the same core costs, on both sides.
 */
import { type LoadResult } from './load.js';
import { type Probe, type Protocol, probes, sampleData } from './payloads.js';
import { onnxRepository, type ServerProcess, startAnchor, startAnchorTransformer, startKserveTs, startKserveTsTransformer } from './servers.js';
import { HOP, HOP_PATHS, HOP_PROTOCOLS, MLP, type Measure, type Row } from './suite-report.js';

export interface HopSettings {
  /** The compat virtualenv's Python; undefined runs kserve-ts only. */
  readonly python: string | undefined;
  readonly pinned: boolean;
  readonly sweep: readonly number[];
  readonly seconds: number;
  readonly warmSeconds: number;
  readonly progress: (line: string) => void;
}

interface Side {
  /** Per client protocol: the predictor alone, and the transformer in front of it. */
  readonly alone: Map<string, Probe>;
  readonly hop: Map<string, Probe>;
  readonly servers: ServerProcess[];
}

const pick = (all: Probe[], protocol: Protocol): Probe => {
  const p = all.find((x) => x.protocol === protocol);
  if (p === undefined) throw new Error(`no ${protocol} probe`);
  return p;
};

const measured = (r: LoadResult, rss: number): Measure => ({ rps: r.rps, p50: r.p50, p99: r.p99, errors: r.errors, rss });

export async function transformerHop(s: HopSettings): Promise<Row[]> {
  const model = MLP.tensor.model;
  const repo = onnxRepository({ [model]: MLP.file });
  const data = sampleData(MLP.tensor.shape);
  const all: ServerProcess[] = [];
  const started = async (start: Promise<ServerProcess>) => {
    const server = await start;
    all.push(server);
    return server;
  };
  // One side: its predictor, then one transformer per hop protocol in front of it.
  const side = async (predictor: () => Promise<ServerProcess>, transformer: (host: string, hop: 'v2' | 'grpc-v2') => Promise<ServerProcess>): Promise<Side> => {
    const p = await started(predictor());
    const alone = new Map<string, Probe>();
    const hop = new Map<string, Probe>();
    const servers = [p];
    for (const { client, hop: protocol } of HOP_PROTOCOLS) {
      const host = `127.0.0.1:${protocol === 'grpc-v2' ? p.grpcPort : p.httpPort}`;
      const t = await started(transformer(host, protocol));
      servers.push(t);
      alone.set(client, pick(probes(p, MLP.tensor, data), client));
      hop.set(client, pick(probes(t, MLP.tensor, data), client));
    }
    return { alone, hop, servers };
  };
  const rssOf = (servers: ServerProcess[]) => servers.reduce((sum, x) => sum + x.rssMiB(), 0);
  try {
    s.progress(`${HOP}: starting predictors and transformers`);
    const ours = await side(
      () => startKserveTs({ repo: repo.dir, models: [model], pinned: s.pinned }),
      (predictorHost, protocol) => startKserveTsTransformer({ model, predictorHost, protocol, pinned: s.pinned }),
    );
    const python = s.python;
    const anchor =
      python === undefined
        ? undefined
        : await side(
            () => startAnchor({ python, repo: repo.dir, models: [model], pinned: s.pinned }),
            (predictorHost, protocol) => startAnchorTransformer({ python, model, predictorHost, protocol, pinned: s.pinned }),
          );
    const sides = [ours, ...(anchor === undefined ? [] : [anchor])];
    for (const x of sides) for (const p of [...x.alone.values(), ...x.hop.values()]) await p.check();
    for (const x of sides) for (const p of [...x.alone.values(), ...x.hop.values()]) await p.load(8, s.warmSeconds);

    const rows: Row[] = [];
    for (const { client } of HOP_PROTOCOLS) {
      for (const c of s.sweep) {
        for (const kind of ['alone', 'hop'] as const) {
          s.progress(`${HOP}: ${client}, ${kind}, c=${c}`);
          const path = kind === 'alone' ? HOP_PATHS.alone(client) : HOP_PATHS.hop(client);
          // RSS: the predictor alone, or predictor plus the transformers in front of it.
          const run = async (x: Side) =>
            measured(await (x[kind].get(client) as Probe).load(c, s.seconds), kind === 'alone' ? (x.servers[0] as ServerProcess).rssMiB() : rssOf(x.servers));
          const mine = await run(ours);
          const theirs = anchor === undefined ? undefined : await run(anchor);
          rows.push({ workload: HOP, path, c: String(c), ours: mine, ...(theirs === undefined ? {} : { anchor: theirs }) });
        }
      }
    }
    return rows;
  } finally {
    for (const server of all.reverse()) await server.stop();
    repo.remove();
  }
}

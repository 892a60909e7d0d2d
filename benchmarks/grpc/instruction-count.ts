/**
 * Instructions per gRPC raw call (issue 34), where wall time is too noisy to compare builds:
 * a kserve-ts build serves conv_small under valgrind's callgrind with collection off; after
 * `--warm` calls collection is switched on (`callgrind_control -i on`), `--calls` calls are
 * made with 4 in flight, collection is switched off and the counts dumped. The printed figure
 * is the dump's total (every thread of the server) divided by the calls; open the dump with
 * callgrind_annotate for the functions. `--inline_max_us 0` keeps the model on its worker
 * (valgrind's slowness would move the start-up decision).
 *
 *   npm run build && node --import tsx benchmarks/grpc/instruction-count.ts [--root DIR] [--out FILE] [--warm 100] [--calls 200]
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { numberArg, ROOT } from '../harness.js';
import { grpcRaw, sampleData } from '../payloads.js';
import { freePort, launch, onnxRepository } from '../servers.js';
import { CONV } from '../suite-report.js';
import { encodeInfer, inferConnections } from './pre-encoded-client.js';

const IN_FLIGHT = 4;

function stringArg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const root = stringArg('root') ?? ROOT;
const out = stringArg('out') ?? '/tmp/kserve-ts-callgrind.out';
const warm = numberArg('warm', 100);
const calls = numberArg('calls', 200);
const repo = onnxRepository({ [CONV.tensor.model]: CONV.file });
const httpPort = await freePort();
const grpcPort = await freePort();
const serve = ['dist/bin/kserve-ts.js', 'serve', '--model_repository', repo.dir, '--http_host', '127.0.0.1', '--http_port', String(httpPort)];
serve.push('--log_level', 'warn', '--grpc_port', String(grpcPort), '--intra_op_threads', '1', '--inline_max_us', '0');
const server = await launch({
  name: `callgrind ${root}`,
  cwd: root,
  cmd: ['valgrind', '--tool=callgrind', '--smc-check=all-non-file', '--instr-atstart=no', `--callgrind-out-file=${out}`, process.execPath, ...serve],
  httpPort,
  grpcPort,
  readyPaths: [`/v2/models/${CONV.tensor.model}/ready`],
  pinned: false,
});
const framed = encodeInfer(grpcRaw(CONV.tensor, sampleData(CONV.tensor.shape)));
const connections = inferConnections(`127.0.0.1:${grpcPort}`, 1);
try {
  for (let i = 0; i < warm; i++) await connections.call(framed);
  const pid = String(server.child.pid);
  execFileSync('callgrind_control', ['-i', 'on', pid]);
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      for (let i = 0; i < calls / IN_FLIGHT; i++) await connections.call(framed);
    }),
  );
  execFileSync('callgrind_control', ['-i', 'off', pid]);
  execFileSync('callgrind_control', ['-d', pid]);
  // The dump on request is the numbered file; its `totals:` line counts every thread.
  const totals = Number(/^totals: (\d+)/m.exec(readFileSync(`${out}.1`, 'utf8'))?.[1]);
  process.stdout.write(`${root}: ${(totals / calls / 1e6).toFixed(2)} M instructions per call (${totals} over ${calls} calls; ${out}.1)\n`);
} finally {
  connections.close();
  await server.stop();
  repo.remove();
}

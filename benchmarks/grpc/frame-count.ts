/**
 * How many HTTP/2 frames one 588 KiB gRPC raw call takes from client to server (issue 34):
 * each frame is a callback and a chunk on the server's side. Counted with the frame tap of
 * test/helpers (a loopback relay that parses frame headers), for node:http2 (the suite's
 * load generator), a grpc-js channel and, with `--python` naming an interpreter that has
 * grpcio (tritonclient's transport; the compatibility virtualenv has it), Python grpcio;
 * against this checkout and, with `--baseline DIR`, an earlier build.
 *
 *   npm run build && node --import tsx benchmarks/grpc/frame-count.ts [--baseline DIR] [--python PATH] [--calls 20]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import * as grpc from '@grpc/grpc-js';
import { startFrameTap } from '../../test/helpers/h2-frame-tap.js';
import { numberArg } from '../harness.js';
import { grpcRaw, sampleData } from '../payloads.js';
import { onnxRepository, startKserveTs } from '../servers.js';
import { CONV } from '../suite-report.js';
import { encodeInfer, inferConnections } from './pre-encoded-client.js';

const PATH = '/inference.GRPCInferenceService/ModelInfer';

function stringArg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/** Makes one warm-up call to `address`, calls `counted`, then makes `n` sequential calls. */
type Client = (address: string, message: Buffer, n: number, counted: () => void) => Promise<void>;

const nodeHttp2: Client = async (address, message, n, counted) => {
  const framed = Buffer.alloc(5 + message.byteLength);
  framed.writeUInt32BE(message.byteLength, 1);
  message.copy(framed, 5);
  const c = inferConnections(address, 1);
  try {
    await c.call(framed);
    counted();
    for (let i = 0; i < n; i++) await c.call(framed);
  } finally {
    c.close();
  }
};

const grpcJs: Client = async (address, message, n, counted) => {
  const client = new grpc.Client(address, grpc.credentials.createInsecure(), { 'grpc.max_receive_message_length': -1, 'grpc.max_send_message_length': -1 });
  const same = (b: Buffer) => b;
  const call = () => new Promise<void>((resolve, reject) => client.makeUnaryRequest(PATH, same, same, message, (e) => (e ? reject(e) : resolve())));
  try {
    await call();
    counted();
    for (let i = 0; i < n; i++) await call();
  } finally {
    client.close();
  }
};

const PY = `
import sys, grpc
addr, path, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
msg = open(path, 'rb').read()
ch = grpc.insecure_channel(addr, options=[('grpc.max_send_message_length', -1), ('grpc.max_receive_message_length', -1)])
call = ch.unary_unary('${PATH}')
call(msg)
print('warm', flush=True)
sys.stdin.readline()
for _ in range(n): call(msg)
print('done', flush=True)
`;

function grpcio(python: string, dir: string): Client {
  return async (address, message, n, counted) => {
    const file = path.join(dir, 'message.bin');
    writeFileSync(file, message);
    const py = spawn(python, ['-c', PY, address, file, String(n)], { stdio: ['pipe', 'pipe', 'inherit'] });
    const lines = createInterface({ input: py.stdout })[Symbol.asyncIterator]();
    if ((await lines.next()).value !== 'warm') throw new Error('grpcio client failed');
    counted();
    py.stdin.write('\n');
    if ((await lines.next()).value !== 'done') throw new Error('grpcio client failed');
  };
}

async function main(): Promise<void> {
  const calls = numberArg('calls', 20);
  const baseline = stringArg('baseline');
  const python = stringArg('python');
  const dir = mkdtempSync(path.join(tmpdir(), 'frame-count-'));
  const clients: Array<[string, Client]> = [
    ['node:http2', nodeHttp2],
    ['grpc-js', grpcJs],
    ...(python === undefined ? [] : [['Python grpcio', grpcio(python, dir)] as [string, Client]]),
  ];
  const message = encodeInfer(grpcRaw(CONV.tensor, sampleData(CONV.tensor.shape))).subarray(5);
  const repo = onnxRepository({ [CONV.tensor.model]: CONV.file });
  const lines = [
    `${CONV.label}, gRPC raw (${message.byteLength} B message); frames client → server per call, ${calls} sequential calls after one warm-up.`,
    '',
    '| server | client | frames per call |',
    '|---|---|---:|',
  ];
  try {
    for (const root of [undefined, baseline]) {
      const s = await startKserveTs({ repo: repo.dir, models: [CONV.tensor.model], ...(root === undefined ? {} : { root }) });
      try {
        for (const [name, client] of clients) {
          const tap = await startFrameTap(`127.0.0.1:${s.grpcPort}`);
          let before = 0;
          await client(tap.address, message, calls, () => (before = tap.clientToServer.frames));
          lines.push(`| ${s.name} | ${name} | ${((tap.clientToServer.frames - before) / calls).toFixed(1)} |`);
          await tap.close();
        }
      } finally {
        await s.stop();
      }
      if (baseline === undefined) break;
    }
  } finally {
    repo.remove();
    rmSync(dir, { recursive: true, force: true });
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

await main();

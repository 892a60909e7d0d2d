/**
 * gRPC benchmark (issue 3): unary ModelInfer throughput and latency on the small MLP
 * (64→8, batch 1) with typed and with raw contents at concurrency 32, and one
 * 1×3×224×224 FP32 image through conv_small over REST binary vs gRPC raw at concurrency 4.
 *
 *   npm run build && node --import tsx benchmarks/grpc/bench.ts [--seconds 5] [--tsx]
 *
 * The server runs as its own process (dist/, or the sources through tsx with --tsx) with
 * one intra-op thread; the clients (@grpc/grpc-js on one channel, Node's built-in undici
 * fetch) run closed loops in this process on the same machine. Both sides send bodies
 * encoded once up front (the REST body, the serialised ModelInferRequest) and read the
 * response bytes without decoding them, so the table compares the server paths rather
 * than client-side encoders; every workload's answer is checked once before it is timed.
 * Prints a markdown table.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { INFERENCE_SERVICE, loadProtocolDefinition } from '../../protocols/grpc/proto.js';
import { grpcClient } from '../../test/grpc/client.js';
import { machineLine } from '../machine.js';
import { ROOT, numberArg, stopChild } from '../harness.js';


const SECONDS = numberArg('seconds', 5);
const WARMUP_SECONDS = 1;

interface Result {
  readonly name: string;
  readonly concurrency: number;
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  readonly mbps: number;
  readonly errors: number;
}

/** `concurrency` workers call `once` back to back for `seconds`; latencies in ms. */
async function closedLoop(seconds: number, concurrency: number, once: () => Promise<void>) {
  const lat: number[] = [];
  let errors = 0;
  const start = performance.now();
  const end = start + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        const t = performance.now();
        try {
          await once();
          lat.push(performance.now() - t);
        } catch {
          errors++;
        }
      }
    }),
  );
  const elapsed = (performance.now() - start) / 1000;
  lat.sort((a, b) => a - b);
  const q = (p: number) => lat[Math.min(lat.length - 1, Math.floor(p * lat.length))] ?? 0;
  return { count: lat.length, rps: lat.length / elapsed, p50: q(0.5), p99: q(0.99), errors };
}

async function measure(name: string, concurrency: number, requestBytes: number, once: () => Promise<void>): Promise<Result> {
  await closedLoop(WARMUP_SECONDS, concurrency, once);
  const r = await closedLoop(SECONDS, concurrency, once);
  process.stderr.write(`${name}: ${r.rps.toFixed(0)} req/s\n`);
  return { name, concurrency, rps: r.rps, p50: r.p50, p99: r.p99, mbps: (r.rps * requestBytes) / 2 ** 20, errors: r.errors };
}

/** Starts the server and resolves with its REST and gRPC ports, read from its log. */
function startServer(repo: string): Promise<{ child: ChildProcess; httpPort: number; grpcPort: number }> {
  const entry = process.argv.includes('--tsx') ? ['--import', 'tsx', 'bin/kserve-ts.ts'] : ['dist/bin/kserve-ts.js'];
  const child = spawn(
    process.execPath,
    [...entry, 'serve', '--model_repository', repo, '--http_host', '127.0.0.1', '--http_port', '0', '--grpc_port', '0', '--intra_op_threads', '1'],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return new Promise((resolve, reject) => {
    let httpPort: number | undefined;
    let grpcPort: number | undefined;
    let buf = '';
    const onData = (d: Buffer) => {
      buf += d.toString();
      const lines = buf.split('\n');
      buf = lines.pop() ?? '';
      for (const line of lines) {
        const m = /Server listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(line);
        if (m) httpPort = Number(m[1]);
        if (line.includes('"gRPC server listening"')) grpcPort = (JSON.parse(line) as { port: number }).port;
      }
      if (httpPort !== undefined && grpcPort !== undefined) {
        child.stdout?.off('data', onData);
        child.stdout?.resume();
        resolve({ child, httpPort, grpcPort });
      }
    };
    child.stdout?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
}

/** ModelInfer on one channel with requests serialised up front and responses left as bytes. */
function preEncodedInfer(address: string): { encode(req: object): Buffer; call(msg: Buffer): Promise<Buffer>; close(): void } {
  const method = (loadProtocolDefinition()[INFERENCE_SERVICE] as grpc.ServiceDefinition)['ModelInfer'] as grpc.MethodDefinition<object, object>;
  const Client = grpc.makeGenericClientConstructor(
    {
      ModelInfer: {
        ...method,
        requestSerialize: (b: Buffer) => b,
        responseDeserialize: (b: Buffer) => b,
      } as unknown as grpc.MethodDefinition<Buffer, Buffer>,
    },
    'GRPCInferenceService',
  );
  const client = new Client(address, grpc.credentials.createInsecure()) as unknown as grpc.Client & {
    ModelInfer(msg: Buffer, cb: (err: grpc.ServiceError | null, res: Buffer) => void): void;
  };
  return {
    encode: (req) => method.requestSerialize(req),
    call: (msg) => new Promise((resolve, reject) => client.ModelInfer(msg, (err, res) => (err ? reject(err) : resolve(res)))),
    close: () => client.close(),
  };
}

function table(rows: Result[]): string {
  const f = (n: number, d = 2) => n.toFixed(d);
  return [
    '| workload | concurrency | req/s | p50 ms | p99 ms | request MiB/s | errors |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...rows.map((r) => `| ${r.name} | ${r.concurrency} | ${f(r.rps, 0)} | ${f(r.p50)} | ${f(r.p99)} | ${f(r.mbps, 1)} | ${r.errors} |`),
  ].join('\n');
}

async function main(): Promise<void> {
  const repo = mkdtempSync(path.join(tmpdir(), 'kserve-ts-grpc-bench-'));
  for (const [name, file] of [['mlp', 'mlp_64x8'], ['conv', 'conv_small']] as const) {
    mkdirSync(path.join(repo, name));
    cpSync(path.join(ROOT, `test/fixtures/models/${file}.onnx`), path.join(repo, name, 'model.onnx'));
  }
  const server = await startServer(repo);
  const base = `http://127.0.0.1:${server.httpPort}`;
  for (;;) {
    const r = await fetch(`${base}/v2/health/ready`).catch(() => undefined);
    if (r?.status === 200) break;
    await new Promise((res) => setTimeout(res, 100));
  }
  const client = grpcClient(`127.0.0.1:${server.grpcPort}`);

  // Small model, batch 1.
  const vector = Array.from({ length: 64 }, (_, i) => (i % 7) / 7);
  const typedReq = { model_name: 'mlp', inputs: [{ name: 'input', datatype: 'FP32', shape: [1, 64], contents: { fp32_contents: vector } }] };
  const rawReq = {
    model_name: 'mlp',
    inputs: [{ name: 'input', datatype: 'FP32', shape: [1, 64] }],
    raw_input_contents: [Buffer.from(Float32Array.from(vector).buffer)],
  };
  const typedCheck = await client.infer(typedReq);
  const rawCheck = await client.infer(rawReq);
  if (typedCheck.outputs[0]?.contents?.fp32_contents?.length !== 8 || rawCheck.raw_output_contents[0]?.byteLength !== 32) {
    throw new Error('unexpected mlp response');
  }

  // One 1×3×224×224 FP32 image.
  const image = new Float32Array(3 * 224 * 224).map((_, i) => ((i * 7919) % 255) / 255);
  const imageBytes = Buffer.from(image.buffer);
  const header = Buffer.from(
    JSON.stringify({
      inputs: [{ name: 'input', datatype: 'FP32', shape: [1, 3, 224, 224], parameters: { binary_data_size: imageBytes.byteLength } }],
      parameters: { binary_data_output: true },
    }),
  );
  const restBody = Buffer.concat([header, imageBytes]);
  const restOnce = async () => {
    const res = await fetch(`${base}/v2/models/conv/infer`, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream', 'inference-header-content-length': String(header.byteLength) },
      body: restBody,
    });
    const body = await res.arrayBuffer();
    if (res.status !== 200 || body.byteLength === 0) throw new Error(`REST ${res.status}`);
  };
  const imageReq = {
    model_name: 'conv',
    inputs: [{ name: 'input', datatype: 'FP32', shape: [1, 3, 224, 224] }],
    raw_input_contents: [imageBytes],
  };
  const restCheck = await fetch(`${base}/v2/models/conv/infer`, {
    method: 'POST',
    headers: { 'content-type': 'application/octet-stream', 'inference-header-content-length': String(header.byteLength) },
    body: restBody,
  });
  const restOut = Buffer.from(await restCheck.arrayBuffer());
  const grpcOut = (await client.infer(imageReq)).raw_output_contents[0] as Uint8Array;
  if (!restOut.subarray(restOut.byteLength - 40).equals(Buffer.from(grpcOut))) throw new Error('REST and gRPC disagree on conv_small');

  client.close();

  const infer = preEncodedInfer(`127.0.0.1:${server.grpcPort}`);
  const [typedMsg, rawMsg, imageMsg] = [typedReq, rawReq, imageReq].map((r) => infer.encode(r)) as [Buffer, Buffer, Buffer];
  const results: Result[] = [];
  results.push(await measure('gRPC typed, mlp_64x8 batch 1', 32, 256, async () => void (await infer.call(typedMsg))));
  results.push(await measure('gRPC raw, mlp_64x8 batch 1', 32, 256, async () => void (await infer.call(rawMsg))));
  results.push(await measure('REST binary, conv_small 1×3×224×224 FP32', 4, imageBytes.byteLength, restOnce));
  results.push(await measure('gRPC raw, conv_small 1×3×224×224 FP32', 4, imageBytes.byteLength, async () => void (await infer.call(imageMsg))));

  infer.close();
  await stopChild(server.child);
  rmSync(repo, { recursive: true, force: true });

  process.stdout.write(
    [
      `Run ${new Date().toISOString()} on ${machineLine()}; ${SECONDS} s per workload after ${WARMUP_SECONDS} s warm-up; clients in one process on the same machine.`,
      '',
      table(results),
      '',
    ].join('\n'),
  );
}

await main();

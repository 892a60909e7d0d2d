/**
 * `--predictor_use_ssl`: the V2 REST client speaks https and the gRPC client a TLS channel.
 * HTTPS trusts Node's CA store, to which a deployment adds its CA with NODE_EXTRA_CA_CERTS;
 * grpc-js trusts its bundled roots or the PEM file in GRPC_DEFAULT_SSL_ROOTS_FILE_PATH (it
 * ignores NODE_EXTRA_CA_CERTS, checked here too). The clients run in a child process because
 * both are read at start-up; the predictors are real servers here.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import { afterAll, describe, expect, it } from 'vitest';
import { loadProtocolDefinition } from '../../protocols/grpc/proto.js';
import { ROOT } from '../helpers/server.js';

const dir = mkdtempSync(path.join(tmpdir(), 'kserve-ts-predictor-tls-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function selfSigned(): { cert: string; key: string } {
  const cert = path.join(dir, 'predictor.crt');
  const key = path.join(dir, 'predictor.key');
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1', '-keyout', key, '-out', cert],
    { stdio: 'ignore' },
  );
  return { cert, key };
}

/** Runs the clients in a child that trusts `ca`; resolves with what it printed (bounded by 30 s). */
function runClients(env: NodeJS.ProcessEnv, restHost: string, grpcHost: string): Promise<string> {
  const script = path.join(dir, 'clients.mts');
  const clients = pathToFileURL(path.join(ROOT, 'server/predictor-client/predictor-clients.ts')).href;
  writeFileSync(
    script,
    `import { createPredictorClient } from ${JSON.stringify(clients)};
const input = { name: 'input', datatype: 'FP32', shape: [1, 4], data: Float32Array.from([6.8, 2.8, 4.8, 1.4]) };
const request = { modelName: 'iris', id: 'tls-1', parameters: undefined, inputs: [input], outputs: [], headers: {}, signal: undefined };
const out = {};
for (const [protocol, host] of [['v2', ${JSON.stringify(restHost)}], ['grpc-v2', ${JSON.stringify(grpcHost)}]]) {
  const c = createPredictorClient({ host, protocol, useSsl: true, requestTimeoutSeconds: 10 });
  try {
    const res = await c.infer(request);
    out[protocol] = res.outputs.map((o) => [o.name, Array.from(o.data, Number)]);
  } catch (err) {
    out[protocol] = String(err.message);
  }
  await c.close();
}
console.log(JSON.stringify(out));
`,
  );
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (out += d.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(out.trim().split('\n').pop() ?? '');
      else reject(new Error(`client child exited ${code}:\n${out}`));
    });
  });
}

describe('--predictor_use_ssl', () => {
  it('V2 REST over https and gRPC over TLS reach predictors with a certificate the process trusts', async () => {
    const { cert, key } = selfSigned();
    const pair = { cert: readFileSync(cert), key: readFileSync(key) };
    let restSeen = 0;
    const rest = https.createServer(pair, (req, res) => {
      restSeen++;
      req.resume();
      req.on('end', () =>
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ model_name: 'iris', outputs: [{ name: 'label', shape: [1], datatype: 'INT64', data: [1] }] })),
      );
    });
    await new Promise<void>((r) => rest.listen(0, '127.0.0.1', r));
    const pkg = grpc.loadPackageDefinition(loadProtocolDefinition()) as unknown as { inference: { GRPCInferenceService: { service: grpc.ServiceDefinition } } };
    const server = new grpc.Server();
    server.addService(pkg.inference.GRPCInferenceService.service, {
      ModelInfer: (_call: unknown, cb: grpc.sendUnaryData<unknown>) =>
        cb(null, { model_name: 'iris', outputs: [{ name: 'label', datatype: 'INT64', shape: ['1'], contents: { int64_contents: ['2'] } }] }),
    });
    const grpcPort = await new Promise<number>((r, j) =>
      server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createSsl(null, [{ cert_chain: pair.cert, private_key: pair.key }]), (e, p) => (e ? j(e) : r(p))),
    );
    try {
      const restHost = `127.0.0.1:${(rest.address() as AddressInfo).port}`;
      const trusted = JSON.parse(await runClients({ NODE_EXTRA_CA_CERTS: cert, GRPC_DEFAULT_SSL_ROOTS_FILE_PATH: cert }, restHost, `127.0.0.1:${grpcPort}`)) as Record<
        string,
        unknown
      >;
      expect(trusted).toEqual({ v2: [['label', [1]]], 'grpc-v2': [['label', [2]]] });
      expect(restSeen).toBe(1);
      // Without the CA, neither client accepts the certificate: a clear 502, not a plaintext fallback.
      const untrusted = JSON.parse(await runClients({ NODE_EXTRA_CA_CERTS: '', GRPC_DEFAULT_SSL_ROOTS_FILE_PATH: '' }, restHost, `127.0.0.1:${grpcPort}`)) as Record<
        string,
        string
      >;
      expect(untrusted['v2']).toMatch(/^Predictor https:\/\/127\.0\.0\.1:\d+ is unreachable: .*certificate/);
      expect(untrusted['grpc-v2']).toMatch(/^Predictor grpcs:\/\/127\.0\.0\.1:\d+ is unreachable: .*certificate/);
    } finally {
      server.forceShutdown();
      rest.closeAllConnections();
      await new Promise<void>((r) => rest.close(() => r()));
    }
  }, 60_000);
});

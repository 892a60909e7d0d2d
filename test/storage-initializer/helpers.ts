/**
 * Real servers for the storage-initializer tests, all on 127.0.0.1 and started here:
 * moto (S3) and fake-gcs-server (GCS) installed by scripts/storage-test-servers.sh, a TCP
 * proxy that injects faults (resets, cuts, corruption, throttling, TLS termination), a
 * self-signed CA made with openssl, and hand-made archives (including malicious ones).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { crc32, deflateRawSync } from 'node:zlib';
import { freePort } from '../helpers/free-port.js';
import { ROOT } from '../helpers/server.js';

export const SI_CLI = path.join(ROOT, 'dist/bin/storage-initializer.js');
/** `node --require` this to resolve *.s3.test to 127.0.0.1 in a storage-initializer run. */
export const TEST_HOSTS_PRELOAD = path.join(ROOT, 'test/storage-initializer/fixtures/test-hosts.cjs');

export interface Servers {
  moto: string;
  fakeGcs: string;
  /** Azurite's blob service entry point (npm, always installed). */
  azurite: string;
  gofakes3: string;
}

/**
 * Installs (first time) or finds the cached servers. fake-gcs-server and gofakes3 are built
 * with Go, which `npm test` needs anyway: without them the suites fail saying so, never skip.
 */
export function installServers(): Servers {
  const out = execFileSync('bash', [path.join(ROOT, 'scripts/storage-test-servers.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  const found = JSON.parse(out.trim().split('\n').pop()!) as { [K in keyof Servers]: string | null };
  for (const [name, bin] of Object.entries(found)) {
    if (bin === null) throw new Error(`${name} is missing: scripts/storage-test-servers.sh builds it with Go (>= 1.25), which the storage-initializer tests need`);
  }
  return found as Servers;
}

export function tempDir(prefix = 'si-test-'): string {
  return mkdtempSync(path.join(tmpdir(), prefix));
}

/** A fresh `models` destination per call, each in a temp folder recorded in `dirs` for cleanup. */
export function modelDest(dirs: string[]): () => string {
  return () => {
    const d = tempDir();
    dirs.push(d);
    return path.join(d, 'models');
  };
}

async function waitForHttp(url: string, timeoutMs: number, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited (${child.exitCode}): ${log()}`);
    try {
      await fetch(url);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`server at ${url} not ready within ${timeoutMs} ms: ${log()}`);
}

export interface Running {
  url: string;
  port: number;
  stop(): Promise<void>;
}

function spawnServer(cmd: string, args: string[], env: NodeJS.ProcessEnv): { child: ChildProcess; log: () => string } {
  const child = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-4000)));
  child.stderr?.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-4000)));
  return { child, log: () => out };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const done = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const t = setTimeout(() => child.kill('SIGKILL'), 3000);
  await done;
  clearTimeout(t);
}

/** moto's S3 on loopback; `auth` makes it check credentials from the first request on. */
export async function startMoto(bin: string, opts: { auth?: boolean; virtualHost?: string } = {}): Promise<Running> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...(opts.auth ? { INITIAL_NO_AUTH_ACTION_COUNT: '0' } : {}),
    // moto serves virtual-host requests (bucket in the Host) only for endpoints named here.
    ...(opts.virtualHost ? { MOTO_S3_CUSTOM_ENDPOINTS: `http://${opts.virtualHost}:${port}` } : {}),
  };
  const { child, log } = spawnServer(bin, ['-H', '127.0.0.1', '-p', String(port)], env);
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/moto-api/`, 30_000, child, log);
  return { url, port, stop: () => stopChild(child) };
}

/** fake-gcs-server serving the buckets found as folders under `dataDir`. */
export async function startFakeGcs(bin: string, dataDir: string): Promise<Running> {
  const port = await freePort();
  const { child, log } = spawnServer(
    bin,
    ['-scheme', 'http', '-host', '127.0.0.1', '-port', String(port), '-backend', 'memory', '-data', dataDir, '-public-host', `127.0.0.1:${port}`, '-log-level', 'error'],
    {},
  );
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/storage/v1/b`, 30_000, child, log);
  return { url, port, stop: () => stopChild(child) };
}

/** Azurite's well-known development account (its documented emulator key, not a secret). */
export const AZURITE_ACCOUNT = 'devstoreaccount1';
export const AZURITE_KEY = 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';

/**
 * Azurite's blob service on loopback, data under a fresh folder. `tls` serves HTTPS (and
 * enables its basic OAuth mode, which needs HTTPS): bearer tokens are checked for issuer,
 * audience and lifetime, not signature.
 */
export async function startAzurite(bin: string, opts: { tls?: { cert: string; key: string } } = {}): Promise<Running & { dir: string }> {
  const port = await freePort();
  const dir = tempDir('si-azurite-');
  const args = ['--blobHost', '127.0.0.1', '--blobPort', String(port), '--location', dir, '--silent', '--disableTelemetry', '--skipApiVersionCheck', '--loose'];
  if (opts.tls) args.push('--cert', opts.tls.cert, '--key', opts.tls.key, '--oauth', 'basic');
  const { child, log } = spawnServer(bin, args, {});
  const url = `${opts.tls ? 'https' : 'http'}://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`azurite exited (${child.exitCode}): ${log()}`);
    const up = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => {
        s.destroy();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (up) break;
    if (Date.now() > deadline) throw new Error(`azurite not ready: ${log()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    port,
    dir,
    stop: async () => {
      await stopChild(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** gofakes3 (in-memory S3) on loopback. */
export async function startGofakes3(bin: string): Promise<Running> {
  const port = await freePort();
  const { child, log } = spawnServer(bin, ['-addr', `127.0.0.1:${port}`], {});
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(url, 30_000, child, log);
  return { url, port, stop: () => stopChild(child) };
}

export interface Pki {
  dir: string;
  ca: string;
  key: string;
  cert: string;
}

/** A throwaway CA and a server certificate for 127.0.0.1/localhost, made with openssl. */
export function makePki(): Pki {
  const dir = tempDir('si-pki-');
  const o = (args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  o(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=kserve-ts test CA']);
  o(['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'srv.key', '-out', 'srv.csr', '-subj', '/CN=127.0.0.1']);
  writeFileSync(path.join(dir, 'ext.cnf'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  o(['x509', '-req', '-in', 'srv.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'srv.crt', '-days', '2', '-extfile', 'ext.cnf']);
  return { dir, ca: path.join(dir, 'ca.crt'), key: readFileSync(path.join(dir, 'srv.key'), 'utf8'), cert: readFileSync(path.join(dir, 'srv.crt'), 'utf8') };
}

export interface ProxyOptions {
  /** Terminate TLS with this key/cert and forward plain TCP. */
  tls?: { key: string; cert: string };
  /** Reset the first N client connections as soon as they send a request. */
  resetFirst?: number;
  /** Cut the first N upstream responses after this many bytes. */
  cutFirst?: { count: number; afterBytes: number };
  /** Replace these bytes in responses (same length: lengths stay valid). */
  corrupt?: { from: string; to: string };
  /** Forward only this many bytes of each response, then hold the rest for good: a download through it never finishes. */
  holdAfterBytes?: number;
  /** The address to listen on (default 127.0.0.1), e.g. the node address pods reach the host by. */
  host?: string;
}

export interface Proxy extends Running {
  connections: number;
  /** The first chunk (request line and headers) of every request seen. */
  requests: string[];
}

export async function startProxy(targetPort: number, opts: ProxyOptions = {}): Promise<Proxy> {
  const sockets = new Set<net.Socket>();
  let cuts = 0;
  const state = { connections: 0, requests: [] as string[] };
  const handle = (client: net.Socket) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => {});
    const n = ++state.connections;
    if (opts.resetFirst && n <= opts.resetFirst) {
      client.once('data', () => client.resetAndDestroy());
      return;
    }
    const upstream = net.connect(targetPort, '127.0.0.1');
    sockets.add(upstream);
    upstream.on('close', () => {
      sockets.delete(upstream);
      client.destroy();
    });
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    client.on('data', (d: Buffer) => {
      state.requests.push(d.toString('latin1'));
      upstream.write(d);
    });
    let sent = 0;
    const cut = opts.cutFirst && cuts < opts.cutFirst.count ? (cuts++, opts.cutFirst.afterBytes) : undefined;
    upstream.on('data', (d: Buffer) => {
      let chunk = d;
      if (opts.corrupt) chunk = Buffer.from(chunk.toString('latin1').replaceAll(opts.corrupt.from, opts.corrupt.to), 'latin1');
      if (cut !== undefined && sent + chunk.length > cut) {
        client.write(chunk.subarray(0, Math.max(0, cut - sent)));
        client.resetAndDestroy();
        upstream.destroy();
        return;
      }
      if (opts.holdAfterBytes !== undefined && sent + chunk.length > opts.holdAfterBytes) {
        client.write(chunk.subarray(0, Math.max(0, opts.holdAfterBytes - sent)));
        sent = opts.holdAfterBytes;
        upstream.pause();
        return;
      }
      sent += chunk.length;
      const ok = client.write(chunk);
      if (!ok) {
        upstream.pause();
        client.once('drain', () => upstream.resume());
      }
    });
  };
  const server = opts.tls ? tls.createServer({ key: opts.tls.key, cert: opts.tls.cert }, handle) : net.createServer(handle);
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((r) => server.listen(0, host, r));
  const port = (server.address() as net.AddressInfo).port;
  return Object.assign(state, {
    url: `${opts.tls ? 'https' : 'http'}://${host}:${port}`,
    port,
    stop: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  });
}

export interface RunResult {
  code: number | null;
  out: string;
}

/** Runs the built storage-initializer with exactly `env` (plus PATH/HOME). */
export function runSi(args: string[], env: Record<string, string> = {}, opts: { onOutput?: (out: string, child: ChildProcess) => void } = {}): Promise<RunResult> {
  const child = spawn(process.execPath, [SI_CLI, ...args], {
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', STORAGE_RETRY_BASE_MS: '20', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const on = (d: Buffer) => {
    out += d.toString();
    opts.onOutput?.(out, child);
  };
  child.stdout.on('data', on);
  child.stderr.on('data', on);
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, out })));
}

/** Every file under `dir`, relative, '/'-separated, sorted (hidden entries included). */
export function listFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string, rel: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(path.join(d, e.name), r);
      else out.push(r);
    }
  };
  walk(dir, '');
  return out.sort();
}

export function exists(p: string): boolean {
  try {
    statSync(p);
    return true;
  } catch {
    return false;
  }
}

export function cleanup(...dirs: string[]): void {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}

// --- archives -------------------------------------------------------------------------

export interface TarMember {
  name: string;
  type?: '0' | '1' | '2' | '3' | '5';
  link?: string;
  content?: string | Buffer;
  mode?: number;
}

/** A ustar archive written byte by byte, so malicious names are possible. */
export function makeTar(members: TarMember[]): Buffer {
  const blocks: Buffer[] = [];
  for (const m of members) {
    const body = m.content === undefined ? Buffer.alloc(0) : Buffer.from(m.content);
    const h = Buffer.alloc(512);
    const put = (s: string, off: number, len: number) => h.write(s, off, len, 'utf8');
    const oct = (n: number, off: number, len: number) => put(`${n.toString(8).padStart(len - 1, '0')}\0`, off, len);
    put(m.name, 0, 100);
    oct(m.mode ?? 0o644, 100, 8);
    oct(0, 108, 8);
    oct(0, 116, 8);
    oct(body.length, 124, 12);
    oct(0, 136, 12);
    put('        ', 148, 8);
    put(m.type ?? '0', 156, 1);
    put(m.link ?? '', 157, 100);
    put('ustar\u000000', 257, 8);
    let sum = 0;
    for (const b of h) sum += b;
    put(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8);
    blocks.push(h, body, Buffer.alloc((512 - (body.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return Buffer.concat(blocks);
}

export interface ZipMember {
  name: string;
  content?: string | Buffer;
  /** Unix mode incl. type bits (0o120777 for a symlink whose content is the target). */
  mode?: number;
  /** Deflate the content (method 8) instead of storing it. */
  deflate?: boolean;
  /** Flip a byte of the stored data after the CRC is computed (a corrupt member). */
  corrupt?: boolean;
  /** Write no data: the central entry points at member `sameDataAs`'s local header (a bomb). */
  sameDataAs?: number;
}

/** A zip (stored, or deflated per member), written byte by byte, so malicious archives are possible. */
export function makeZip(members: ZipMember[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  const offsets: number[] = [];
  const sizes: Array<{ crc: number; packed: number; size: number; method: number }> = [];
  for (const m of members) {
    const name = Buffer.from(m.name, 'utf8');
    const plain = m.content === undefined ? Buffer.alloc(0) : Buffer.from(m.content);
    const crc = crc32(plain);
    const method = m.deflate ? 8 : 0;
    const body = m.deflate ? deflateRawSync(plain) : Buffer.from(plain);
    if (m.corrupt) {
      const i = Math.floor(body.length / 2);
      body[i] = body[i]! ^ 0xff;
    }
    if (m.sameDataAs !== undefined) {
      const s0 = sizes[m.sameDataAs]!;
      const ch = Buffer.alloc(46);
      ch.writeUInt32LE(0x02014b50, 0);
      ch.writeUInt16LE((3 << 8) | 20, 4);
      ch.writeUInt16LE(20, 6);
      ch.writeUInt16LE(0x800, 8);
      ch.writeUInt16LE(s0.method, 10);
      ch.writeUInt32LE(s0.crc, 16);
      ch.writeUInt32LE(s0.packed, 20);
      ch.writeUInt32LE(s0.size, 24);
      ch.writeUInt16LE(name.length, 28);
      ch.writeUInt32LE((0o100644 << 16) >>> 0, 38);
      ch.writeUInt32LE(offsets[m.sameDataAs]!, 42);
      centrals.push(ch, name);
      sizes.push(s0);
      offsets.push(offsets[m.sameDataAs]!);
      continue;
    }
    offsets.push(offset);
    sizes.push({ crc, packed: body.length, size: plain.length, method });
    const lh = Buffer.alloc(30);
    lh.writeUInt32LE(0x04034b50, 0);
    lh.writeUInt16LE(20, 4);
    lh.writeUInt16LE(0x800, 6);
    lh.writeUInt16LE(method, 8);
    lh.writeUInt32LE(crc, 14);
    lh.writeUInt32LE(body.length, 18);
    lh.writeUInt32LE(plain.length, 22);
    lh.writeUInt16LE(name.length, 26);
    const ch = Buffer.alloc(46);
    ch.writeUInt32LE(0x02014b50, 0);
    ch.writeUInt16LE((3 << 8) | 20, 4);
    ch.writeUInt16LE(20, 6);
    ch.writeUInt16LE(0x800, 8);
    ch.writeUInt16LE(method, 10);
    ch.writeUInt32LE(crc, 16);
    ch.writeUInt32LE(body.length, 20);
    ch.writeUInt32LE(plain.length, 24);
    ch.writeUInt16LE(name.length, 28);
    ch.writeUInt32LE(((m.mode ?? 0o100644) << 16) >>> 0, 38);
    ch.writeUInt32LE(offset, 42);
    locals.push(lh, name, body);
    centrals.push(ch, name);
    offset += 30 + name.length + body.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(members.length, 8);
  end.writeUInt16LE(members.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

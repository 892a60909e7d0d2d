/**
 * Storage-initializer benchmark: download one large object plus many 4 MiB objects (2 GiB in
 * all by default: 1 GiB + 256 × 4 MiB) from two local S3 servers on loopback, moto (reads
 * the whole object for every ranged GET) and gofakes3 (serves ranges from memory), with
 *   - kserve-ts's storage-initializer (defaults: adaptive part size and parallelism),
 *   - the same with 16 requests fixed (STORAGE_CONCURRENCY=16, the previous default),
 *   - the same with fixed 16 MiB parts,
 *   - with BENCH_BASELINE=DIR, another build's CLI (DIR/dist/bin/storage-initializer.js, e.g.
 *     a `git worktree` of the commit before a change) with its defaults, side by side,
 *   - a plain single stream (the same CLI with STORAGE_CONCURRENCY=1 and no ranged parts),
 *   - the anchor's storage initializer (`kserve-storage` from PyPI, same server, same data),
 * and report wall time, throughput and peak RSS (the sum over the process tree, sampled
 * from /proc every 50 ms, so the anchor's worker processes count).
 *
 *   npm run build && node --import tsx benchmarks/storage/run.ts          # 2 GiB
 *   BENCH_GIB=0.25 node --import tsx benchmarks/storage/run.ts            # quicker
 *   BENCH_REPEAT=3 BENCH_SERVERS=gofakes3 BENCH_ANCHOR=0 ...             # best of 3, one server, no anchor
 *   BENCH_CPU_PROF=DIR ...   # the kserve-ts default rows also write V8 CPU profiles into DIR
 * Rows run interleaved (every client once, then again) so a busy machine slows them alike;
 * the best wall time of the repeats is reported.
 *
 * Needs Python 3 and PyPI the first time (moto and kserve-storage virtualenvs are cached
 * under ~/.cache/kserve-ts/). Results are printed, not written anywhere.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { CompleteMultipartUploadCommand, CreateBucketCommand, CreateMultipartUploadCommand, PutObjectCommand, S3Client, UploadPartCommand } from '@aws-sdk/client-s3';
import { installServers, listFiles, startGofakes3, startMoto, tempDir, type Running } from '../../test/storage-initializer/helpers.js';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const GIB = Number(process.env['BENCH_GIB'] ?? '2');
const MiB = 1024 * 1024;
const BIG = Math.round((GIB / 2) * 1024) * MiB;
const SMALL_COUNT = Math.round(256 * (GIB / 2));
const SMALL = 4 * MiB;
const KSERVE_STORAGE = '0.20.0';

function kserveStorageVenv(): string {
  const venv = path.join(process.env['XDG_CACHE_HOME'] ?? path.join(os.homedir(), '.cache'), 'kserve-ts', `bench-kserve-storage-${KSERVE_STORAGE}`);
  if (!existsSync(path.join(venv, '.complete'))) {
    rmSync(venv, { recursive: true, force: true });
    execFileSync('python3', ['-m', 'venv', venv], { stdio: 'inherit', cwd: os.tmpdir() });
    execFileSync(path.join(venv, 'bin/pip'), ['install', '-q', '--disable-pip-version-check', `kserve-storage==${KSERVE_STORAGE}`], { stdio: 'inherit' });
    execFileSync('touch', [path.join(venv, '.complete')]);
  }
  return venv;
}

/** Sum of RSS over a process and its descendants, in bytes. */
function treeRss(root: number): number {
  const children = new Map<number, number[]>();
  const rss = new Map<number, number>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ppid = Number(fields[1]);
      rss.set(Number(d), Number(fields[21]) * 4096);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(d)]);
    } catch {
      /* exited */
    }
  }
  let total = 0;
  const stack = [root];
  while (stack.length) {
    const p = stack.pop()!;
    total += rss.get(p) ?? 0;
    stack.push(...(children.get(p) ?? []));
  }
  return total;
}

async function measure(name: string, cmd: string, args: string[], env: Record<string, string>, dest: string) {
  rmSync(dest, { recursive: true, force: true });
  const started = performance.now();
  const child = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d: Buffer) => {
    err = (err + d.toString()).slice(-3000);
    // The adaptive plan's line, so a run's part sizes can be read next to its time.
    for (const line of d.toString().split('\n')) if (/: first .* in \d+ parts? of up to|parallelism to/.test(line)) process.stderr.write(`  ${line}\n`);
  });
  let peak = 0;
  const timer = setInterval(() => (peak = Math.max(peak, treeRss(child.pid!))), 50);
  const code = await new Promise<number | null>((r) => child.on('close', r));
  clearInterval(timer);
  const seconds = (performance.now() - started) / 1000;
  if (code !== 0) throw new Error(`${name} failed (${code}): ${err}`);
  const files = listFiles(dest).length;
  const bytes = BIG + SMALL_COUNT * SMALL;
  if (files !== SMALL_COUNT + 1) throw new Error(`${name}: ${files} files, expected ${SMALL_COUNT + 1}`);
  return { name, seconds, mibps: bytes / MiB / seconds, peakMiB: peak / MiB };
}

async function upload(server: Running): Promise<void> {
  const creds = { accessKeyId: 'bench', secretAccessKey: 'bench' };
  const s3 = new S3Client({ endpoint: server.url, forcePathStyle: true, region: 'us-east-1', credentials: creds });
  await s3.send(new CreateBucketCommand({ Bucket: 'bench' }));
  const chunk = randomBytes(64 * MiB);
  const mp = await s3.send(new CreateMultipartUploadCommand({ Bucket: 'bench', Key: 'model/big.bin' }));
  const parts = [];
  for (let off = 0, n = 1; off < BIG; off += chunk.length, n++) {
    const body = chunk.subarray(0, Math.min(chunk.length, BIG - off));
    const r = await s3.send(new UploadPartCommand({ Bucket: 'bench', Key: 'model/big.bin', UploadId: mp.UploadId, PartNumber: n, Body: body }));
    parts.push({ ETag: r.ETag, PartNumber: n });
  }
  await s3.send(new CompleteMultipartUploadCommand({ Bucket: 'bench', Key: 'model/big.bin', UploadId: mp.UploadId, MultipartUpload: { Parts: parts } }));
  for (let i = 0; i < SMALL_COUNT; i += 8) {
    await Promise.all(
      Array.from({ length: Math.min(8, SMALL_COUNT - i) }, (_, j) =>
        s3.send(
          new PutObjectCommand({
            Bucket: 'bench',
            Key: `model/small/${String(i + j).padStart(4, '0')}.bin`,
            Body: chunk.subarray(((i + j) % 16) * SMALL, (((i + j) % 16) + 1) * SMALL),
          }),
        ),
      ),
    );
  }
  s3.destroy();
}

async function main() {
  const servers = installServers();
  const venv = kserveStorageVenv();
  const work = tempDir('si-bench-');
  const cli = path.join(ROOT, 'dist/bin/storage-initializer.js');
  const dest = path.join(work, 'models');
  const only = (process.env['BENCH_SERVERS'] ?? 'moto,gofakes3').split(',');
  const starts: Array<[string, () => Promise<Running>]> = [
    ['moto', () => startMoto(servers.moto)],
    ['gofakes3', () => startGofakes3(servers.gofakes3)],
  ];
  const rows: Array<{ server: string; name: string; seconds: number; mibps: number; peakMiB: number }> = [];
  try {
    for (const [serverName, start] of starts.filter(([n]) => only.includes(n))) {
      const server = await start();
      try {
        process.stderr.write(`uploading ${BIG / MiB} MiB + ${SMALL_COUNT} × 4 MiB to ${serverName}...\n`);
        await upload(server);
        const env = { AWS_ENDPOINT_URL: server.url, AWS_ACCESS_KEY_ID: 'bench', AWS_SECRET_ACCESS_KEY: 'bench', AWS_DEFAULT_REGION: 'us-east-1', STORAGE_PROGRESS_INTERVAL: '60' };
        const plan: Array<[string, string, string[], Record<string, string>]> = [];
        const run = async (name: string, cmd: string, args: string[], extra: Record<string, string>) => {
          plan.push([name, cmd, args, extra]);
        };
        const prof = process.env['BENCH_CPU_PROF'] ? ['--cpu-prof', '--cpu-prof-dir', path.join(process.env['BENCH_CPU_PROF'], serverName)] : [];
        await run('kserve-ts storage-initializer, defaults (adaptive parts and requests)', process.execPath, [...prof, cli, 's3://bench/model', dest], {});
        await run('kserve-ts, 16 requests fixed (the previous default)', process.execPath, [cli, 's3://bench/model', dest], { STORAGE_CONCURRENCY: '16' });
        await run('kserve-ts, fixed 16 MiB parts', process.execPath, [cli, 's3://bench/model', dest], { STORAGE_PART_SIZE: String(16 * MiB) });
        const baseline = process.env['BENCH_BASELINE'];
        if (baseline)
          await run(
            `kserve-ts baseline build (${baseline}), its defaults`,
            process.execPath,
            [...(prof.length ? [prof[0]!, prof[1]!, path.join(prof[2]!, 'baseline')] : []), path.join(baseline, 'dist/bin/storage-initializer.js'), 's3://bench/model', dest],
            {},
          );
        await run('single stream (same CLI, 1 request, no ranges)', process.execPath, [cli, 's3://bench/model', dest], {
          STORAGE_CONCURRENCY: '1',
          STORAGE_PART_SIZE: String(64 * 1024 * MiB),
        });
        if (process.env['BENCH_ANCHOR'] !== '0') {
          await run(
            `kserve-storage ${KSERVE_STORAGE} (anchor)`,
            path.join(venv, 'bin/python'),
            ['-c', 'import sys; from kserve_storage import Storage; Storage.download(sys.argv[1], sys.argv[2])', 's3://bench/model', dest],
            {},
          );
        }
        const repeat = Math.max(1, Number(process.env['BENCH_REPEAT'] ?? '1'));
        const best = new Map<string, Awaited<ReturnType<typeof measure>>>();
        for (let i = 0; i < repeat; i++) {
          for (const [name, cmd, args, extra] of plan) {
            process.stderr.write(`${serverName}: ${name} (run ${i + 1} of ${repeat})\n`);
            const m = await measure(name, cmd, args, { ...env, ...extra }, dest);
            const prev = best.get(name);
            if (!prev || m.seconds < prev.seconds) best.set(name, m);
          }
        }
        for (const [name] of plan) rows.push({ server: serverName, ...best.get(name)! });
      } finally {
        await server.stop();
      }
    }
    const total = (BIG + SMALL_COUNT * SMALL) / MiB;
    process.stdout.write(
      `\nstorage-initializer benchmark: ${total} MiB (${BIG / MiB} MiB object + ${SMALL_COUNT} × 4 MiB) per server on loopback, ${os.cpus().length} CPUs, load average at the end ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}\n\n`,
    );
    process.stdout.write('| server | client | wall s | MiB/s | peak RSS MiB (process tree) |\n|---|---|---:|---:|---:|\n');
    for (const r of rows) process.stdout.write(`| ${r.server} | ${r.name} | ${r.seconds.toFixed(1)} | ${r.mibps.toFixed(0)} | ${r.peakMiB.toFixed(0)} |\n`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exitCode = 1;
});

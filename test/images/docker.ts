/**
 * The Docker engine and images the container suites run against: .ci/run starts a private
 * engine (scripts/docker-engine.sh) and builds the images (scripts/build-images.sh) first.
 * Without DOCKER_HOST the suites fail with that instruction; they never skip.
 */
import { execFile } from 'node:child_process';
import { chmodSync, cpSync, mkdtempSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from '../helpers/server.js';

const run = promisify(execFile);
const DOCKER = process.env['DOCKER'] ?? '/usr/bin/docker';
const VERSION = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

export function imageName(
  name:
    | 'server'
    | 'server-tensorflow'
    | 'server-cuda'
    | 'storage-initializer'
    | 'controller'
    | 'router'
    | 'model-iris'
    | 'custom-model'
    | 'transformer'
    | 'metrics-server'
    | 'keda'
    | 'traefik',
): string {
  return `kserve-ts-${name}:${VERSION}`;
}

export interface DockerResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the docker client; resolves with the exit code instead of throwing. */
export async function docker(args: readonly string[], timeoutMs = 120_000): Promise<DockerResult> {
  if (!process.env['DOCKER_HOST']) {
    throw new Error('DOCKER_HOST is not set: eval "$(scripts/docker-engine.sh start)" and scripts/build-images.sh first');
  }
  try {
    const { stdout, stderr } = await run(DOCKER, [...args], { timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number | string; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : 1, stdout: e.stdout ?? '', stderr: e.stderr ?? String(err) };
  }
}

/** Fails the test unless the image exists (built by scripts/build-images.sh). */
export async function requireImage(image: string): Promise<void> {
  const r = await docker(['image', 'inspect', image]);
  if (r.code !== 0) throw new Error(`image ${image} is missing: run scripts/build-images.sh (${r.stderr.trim()})`);
}

/** The options every container of the suites runs with, as a hardened pod would. */
export const HARDENED = ['--read-only', '--tmpfs', '/tmp', '--cap-drop', 'ALL', '--security-opt', 'no-new-privileges'];

/** `docker run` of a detached, hardened container on the host's network, as every image test starts one. */
export const runDetached = (name: string): string[] => ['run', '-d', '--name', name, '--network', 'host', ...HARDENED];

export async function removeContainer(name: string): Promise<void> {
  await docker(['rm', '-f', name]);
}

/**
 * A copy of `source` (a file, which keeps its name, or a folder's contents) in a fresh temp
 * folder that the images' UID 1000 can read, as a pod's volume would be: mkdtemp makes 0700
 * folders. The caller removes the folder.
 */
export function volumeCopy(source: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'kserve-ts-image-volume-'));
  cpSync(source, statSync(source).isDirectory() ? dir : path.join(dir, path.basename(source)), { recursive: true });
  const open = (p: string): void => {
    const isDir = statSync(p).isDirectory();
    chmodSync(p, isDir ? 0o755 : 0o644);
    if (isDir) for (const e of readdirSync(p)) open(path.join(p, e));
  };
  open(dir);
  return dir;
}

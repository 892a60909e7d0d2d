/**
 * Stand-ins for the puller's surroundings, all real: a folder written the way kubelet writes
 * a ConfigMap volume (AtomicWriter: a `..<timestamp>` folder, `..data` swapped to it by a
 * rename, `models.json` a link through `..data`), a loopback HTTP server holding model files
 * (and counting what it is asked for), and a server started as `kserve-ts serve` starts it.
 */
import { mkdirSync, mkdtempSync, readlinkSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ModelServer } from '../../server/server.js';
import { buildServer } from '../helpers/server.js';

export interface ModelEntry {
  readonly modelName: string;
  readonly modelSpec: { readonly storageUri: string; readonly framework: string; readonly memory?: string };
}

/** A ConfigMap volume holding `models.json`, updated as kubelet updates one. */
export class ConfigMapDir {
  readonly dir = mkdtempSync(path.join(tmpdir(), 'puller-configmap-'));
  readonly file = path.join(this.dir, 'models.json');
  #version = 0;

  constructor() {
    symlinkSync('..data/models.json', this.file);
  }

  write(entries: readonly ModelEntry[]): void {
    this.writeRaw(JSON.stringify(entries));
  }

  /** The new payload in a fresh timestamped folder, `..data` swapped to it atomically, the old one removed. */
  writeRaw(text: string): void {
    const name = `..2026_12_05_12_00_00.${String(++this.#version).padStart(9, '0')}`;
    mkdirSync(path.join(this.dir, name));
    writeFileSync(path.join(this.dir, name, 'models.json'), text);
    const data = path.join(this.dir, '..data');
    let previous: string | undefined;
    try {
      previous = readlinkSync(data);
    } catch {
      previous = undefined;
    }
    const tmp = path.join(this.dir, '..data_tmp');
    symlinkSync(name, tmp);
    renameSync(tmp, data);
    if (previous !== undefined) rmSync(path.join(this.dir, previous), { recursive: true, force: true });
  }

  /** `..data` gone for a moment, as between a volume's teardown and its next write. */
  hide(): void {
    unlinkSync(path.join(this.dir, '..data'));
  }

  cleanup(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Model files over plain HTTP on loopback; `requests` counts each path asked for. */
export class FileServer {
  readonly files = new Map<string, Buffer>();
  readonly requests = new Map<string, number>();
  readonly #server = http.createServer((req, res) => {
    const p = new URL(req.url ?? '/', 'http://x').pathname;
    this.requests.set(p, (this.requests.get(p) ?? 0) + 1);
    const body = this.files.get(p);
    if (body === undefined) {
      res.writeHead(404).end('not found');
      return;
    }
    res.writeHead(200, { 'content-length': body.length, 'content-type': 'application/octet-stream' }).end(req.method === 'HEAD' ? undefined : body);
  });
  url = '';

  async start(): Promise<this> {
    await new Promise<void>((r) => this.#server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
    return this;
  }

  close(): Promise<void> {
    this.#server.closeAllConnections();
    return new Promise((r) => this.#server.close(() => r()));
  }
}

export interface PullerServer {
  readonly server: ModelServer;
  readonly url: string;
  readonly modelDir: string;
  close(): Promise<void>;
}

/** A server as `kserve-ts serve --model_dir <tmp> --model_config_file <file> ...flags` with `env`, on loopback. */
export async function startPullerServer(configFile: string, flags: readonly string[] = [], env: NodeJS.ProcessEnv = {}): Promise<PullerServer> {
  const modelDir = mkdtempSync(path.join(tmpdir(), 'puller-models-'));
  const server = await buildServer(['--model_dir', modelDir, '--model_config_file', configFile, ...flags], {
    env: { HDFS_SECRET_DIR: '/nonexistent', ...env },
    loadStartupModels: true,
  });
  await server.http.listen({ host: '127.0.0.1', port: 0 });
  await server.startupLoad;
  const port = (server.http.server.address() as AddressInfo).port;
  return {
    server,
    url: `http://127.0.0.1:${port}`,
    modelDir,
    close: async () => {
      await server.close();
      rmSync(modelDir, { recursive: true, force: true });
    },
  };
}

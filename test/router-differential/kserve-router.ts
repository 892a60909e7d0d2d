/**
 * KServe's own router (cmd/router of github.com/kserve/kserve v0.20.0, built by
 * scripts/graph-oracles.sh) as a child process for one graph. It always binds :8080 on
 * every address, so the suite runs in a network namespace of its own (run.sh).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';
import { tiedToParent } from '../helpers/tied-process.js';

export const KSERVE_ROUTER_PORT = 8080;

function connects(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

/** Fails unless :8080 is free here, i.e. the suite runs in its own network namespace. */
export async function assertPrivatePort(): Promise<void> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', () =>
      reject(
        new Error(
          `port ${KSERVE_ROUTER_PORT} is taken: KServe's router binds it on every address; run this suite with test/router-differential/run.sh (a network namespace of its own)`,
        ),
      ),
    );
    server.listen(KSERVE_ROUTER_PORT, '0.0.0.0', () => resolve());
  });
  await new Promise<void>((r) => server.close(() => r()));
}

export interface KServeRouter {
  readonly url: string;
  output(): string;
  stop(): Promise<void>;
}

export async function startKServeRouter(bin: string, graph: unknown, env: NodeJS.ProcessEnv = {}): Promise<KServeRouter> {
  const [cmd, argv] = tiedToParent(bin, ['--graph-json', JSON.stringify(graph)]);
  const child: ChildProcess = spawn(cmd, argv, { env: { PATH: process.env['PATH'] ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString('utf8')));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString('utf8')));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // Its listener comes up in a goroutine after start-up: wait until it accepts (bounded).
  for (let i = 0; !(await connects(KSERVE_ROUTER_PORT)); i++) {
    if (child.exitCode !== null || i > 500) {
      child.kill('SIGKILL');
      throw new Error(`KServe's router did not start listening:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  return {
    url: `http://127.0.0.1:${KSERVE_ROUTER_PORT}`,
    output: () => out,
    async stop() {
      // SIGTERM would hold the port for its 30 s drain.
      child.kill('SIGKILL');
      await exited;
    },
  };
}

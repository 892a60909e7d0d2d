/**
 * `npm ci` never downloads outside the npm registry (issue 20). The one install script in the
 * dependency tree that would is onnxruntime-node's: it fetches the CUDA provider from NuGet
 * unless told to skip. Today the project's .npmrc key `onnxruntime-node-install=skip` tells it
 * (npm passes it as npm_config_onnxruntime_node_install and warns that the next major npm
 * will stop passing unknown keys); ONNXRUNTIME_NODE_INSTALL=skip, which the installer reads
 * first, works without npm's help. Both are run here under strace: no connection at all.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from './helpers/server.js';
import { STRACE_ARGS, netAttempts, requireStrace } from './helpers/strace.js';

const dir = mkdtempSync(path.join(tmpdir(), 'kserve-ts-npm-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const installer = path.join(ROOT, 'node_modules/onnxruntime-node/script/install.js');

function tracedRun(name: string, command: string, args: string[], env: NodeJS.ProcessEnv): { status: number | null; attempts: string[] } {
  const log = path.join(dir, `${name}.strace`);
  const r = spawnSync('strace', [...STRACE_ARGS, '-o', log, command, ...args], { cwd: ROOT, env, encoding: 'utf8', timeout: 120_000 });
  return { status: r.status, attempts: netAttempts(log).map((a) => a.line) };
}

describe('onnxruntime-node install script', () => {
  it('runs through npm with the project config (npm rebuild, as npm ci runs it) and makes no connection', () => {
    requireStrace();
    const env = { ...process.env };
    delete env.ONNXRUNTIME_NODE_INSTALL;
    const r = tracedRun('npm', 'npm', ['rebuild', 'onnxruntime-node', '--foreground-scripts', '--no-audit', '--no-fund'], env);
    expect(r.status).toBe(0);
    expect(r.attempts).toEqual([]);
  }, 150_000);

  it('is skipped by ONNXRUNTIME_NODE_INSTALL=skip alone, without npm passing the .npmrc key', () => {
    requireStrace();
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, ONNXRUNTIME_NODE_INSTALL: 'skip' };
    const r = tracedRun('env', process.execPath, [installer], env);
    expect(r.status).toBe(0);
    expect(r.attempts).toEqual([]);
  }, 60_000);
});

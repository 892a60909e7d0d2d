/**
 * Network attempts of a process tree, observed with `strace -f -e trace=connect,sendto`
 * (strace from apt; a test that needs it fails, never skips, when it is missing).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

export const STRACE_ARGS = ['-f', '-qq', '-e', 'trace=connect,sendto', '-s', '256'];

export function requireStrace(): void {
  const r = spawnSync('strace', ['-V'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error('strace is needed to observe network calls: apt-get install -y strace');
}

export interface NetAttempt {
  readonly line: string;
  readonly address: string;
  readonly port: number;
}

/** Every connect/sendto to an IPv4/IPv6 address in an strace log (Unix and netlink sockets are local). */
export function netAttempts(logFile: string): NetAttempt[] {
  const out: NetAttempt[] = [];
  for (const line of readFileSync(logFile, 'utf8').split('\n')) {
    if (!/\b(connect|sendto)\(/.test(line)) continue;
    const v4 = /sin_port=htons\((\d+)\), sin_addr=inet_addr\("([^"]+)"\)/.exec(line);
    const v6 = /sin6_port=htons\((\d+)\),.*?inet_pton\(AF_INET6, "([^"]+)"/.exec(line);
    const m = v4 ?? v6;
    if (m) out.push({ line, port: Number(m[1]), address: m[2] as string });
  }
  return out;
}

export function isLoopback(address: string): boolean {
  return address.startsWith('127.') || address === '::1' || address.startsWith('::ffff:127.');
}

/** Attempts that leave the host or ask DNS (port 53, even on loopback). */
export function outbound(attempts: readonly NetAttempt[]): NetAttempt[] {
  return attempts.filter((a) => !isLoopback(a.address) || a.port === 53);
}

/**
 * Child processes of a test that die with it: under `setpriv --pdeathsig KILL` (util-linux),
 * which execs the command, so the child's pid is the command's own and signals reach it
 * directly. A test worker killed outright (SIGKILL, no exit handlers) then still leaves no
 * servers, controllers or API servers behind. Without setpriv the command runs as given.
 */
import { spawnSync } from 'node:child_process';

const setpriv = (() => {
  const r = spawnSync('setpriv', ['--help'], { encoding: 'utf8' });
  return r.status === 0 && r.stdout.includes('--pdeathsig');
})();

export function tiedToParent(command: string, args: readonly string[]): [string, string[]] {
  return setpriv ? ['setpriv', ['--pdeathsig', 'KILL', '--', command, ...args]] : [command, [...args]];
}

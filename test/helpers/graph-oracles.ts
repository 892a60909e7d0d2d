/**
 * The InferenceGraph oracles built by scripts/graph-oracles.sh (cached under
 * ~/.cache/kserve-ts): the gjson CLI (github.com/tidwall/gjson v1.20.4) and KServe's own
 * router (github.com/kserve/kserve v0.20.0 cmd/router). A cold build of the router takes
 * minutes: call these from a beforeAll with a long timeout.
 */
import { spawn } from 'node:child_process';
import { memoised, runBinScript } from '../controller/harness/bin-script.js';

export const ensureGjsonCli: () => Promise<string> = memoised(() => runBinScript('graph-oracles.sh', ['gjson']));
export const ensureKServeRouter: () => Promise<string> = memoised(() => runBinScript('graph-oracles.sh', ['kserve-router']));

export interface GjsonQuery {
  /** The document, as UTF-8 text. */
  readonly json: string;
  readonly path: string;
}

export interface GjsonAnswer {
  readonly valid: boolean;
  readonly exists: boolean;
  readonly raw: string;
  readonly type: string;
  /** encoding/json: Unmarshal of the document into map[string]interface{}: its error ('' when none). */
  readonly mapError: string;
  /** ... and Marshal of that map ('' after an error). */
  readonly mapJson: string;
}

/** Asks gjson (and Go's encoding/json) itself: one CLI process for the whole batch, answers in order. */
export async function askGjson(queries: readonly GjsonQuery[]): Promise<GjsonAnswer[]> {
  const cli = await ensureGjsonCli();
  return new Promise((resolve, reject) => {
    const child = spawn(cli, [], { stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => (err += d.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) {
        reject(new Error(`gjson CLI exited with ${code}: ${err}`));
        return;
      }
      const lines = Buffer.concat(out)
        .toString('utf8')
        .split('\n')
        .filter((l) => l !== '');
      if (lines.length !== queries.length) {
        reject(new Error(`gjson CLI answered ${lines.length} of ${queries.length} queries: ${err}`));
        return;
      }
      resolve(lines.map((l) => JSON.parse(l) as GjsonAnswer));
    });
    child.stdin.end(queries.map((q) => JSON.stringify(q)).join('\n') + '\n');
  });
}

/**
 * The one-node cluster of scripts/kube-node.sh for the end-to-end suites: brought up when
 * it is not (and then taken down again by `release()`), kubectl and helm against it, the
 * addresses the harness creates (node IP, Service and pod ranges), and diagnostics for a
 * failed test. Tests only ever talk to loopback and to those addresses.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type HelmTools, type KubectlOptions, type KubectlResult, ensureHelmTools, ensureKubeBinaries, runKubectl, runProcess } from '../../controller/harness/index.js';
import { runBinScript } from '../../controller/harness/bin-script.js';

export const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const SCRIPT = path.join(ROOT, 'scripts/kube-node.sh');
/** The node's address (kubelet, apiserver, and where host-side test servers bind for pods). */
export const NODE_IP = '10.77.0.1';

export interface KubeNode {
  readonly kubeconfigPath: string;
  readonly helm: HelmTools;
  kubectl(args: readonly string[], opts?: KubectlOptions): Promise<KubectlResult>;
  /** kubectl that must succeed: its stdout, or an error carrying stderr. */
  kubectlOk(args: readonly string[], opts?: KubectlOptions): Promise<string>;
  helmRun(args: readonly string[], timeoutMs?: number): Promise<KubectlResult>;
  /** Pods, events, describe and controller logs of `namespaces`, for a failure message. */
  diagnostics(namespaces: readonly string[]): Promise<string>;
  /** Takes the node down if this process brought it up. */
  release(): Promise<void>;
}

function statusUp(): boolean {
  return spawnSync('bash', [SCRIPT, 'status'], { stdio: 'ignore' }).status === 0;
}

export async function useKubeNode(): Promise<KubeNode> {
  const wasUp = statusUp();
  const startedAt = Date.now();
  const kubeconfigPath = await runBinScript('kube-node.sh', ['up']);
  if (!wasUp) console.log(`kube-node: up in ${Date.now() - startedAt} ms`);
  const [bins, helm] = await Promise.all([ensureKubeBinaries(), ensureHelmTools()]);
  const cache = mkdtempSync(path.join(os.tmpdir(), 'kserve-ts-kubectl-'));
  const kubectl = (args: readonly string[], opts?: KubectlOptions): Promise<KubectlResult> => runKubectl(bins.kubectl, ['--kubeconfig', kubeconfigPath, ...args], cache, opts);
  const kubectlOk = async (args: readonly string[], opts?: KubectlOptions): Promise<string> => {
    const r = await kubectl(args, opts);
    if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} exited with ${r.code}: ${r.stderr.trim()}`);
    return r.stdout;
  };
  const helmRun = (args: readonly string[], timeoutMs = 180_000): Promise<KubectlResult> => run(helm.helm, [...args, '--kubeconfig', kubeconfigPath], timeoutMs);
  return {
    kubeconfigPath,
    helm,
    kubectl,
    kubectlOk,
    helmRun,
    async diagnostics(namespaces) {
      const parts: string[] = [];
      const add = async (title: string, args: string[]): Promise<void> => {
        const r = await kubectl(args, { timeoutMs: 20_000 });
        parts.push(`--- ${title} ---\n${(r.stdout + r.stderr).trim().slice(-6_000)}`);
      };
      await add('pods', ['get', 'pods', '-A', '-o', 'wide']);
      for (const ns of namespaces) {
        await add(`events ${ns}`, ['get', 'events', '-n', ns, '--sort-by=.lastTimestamp']);
        await add(`inferenceservices ${ns}`, ['describe', 'inferenceservices', '-n', ns]);
        await add(`pods ${ns}`, ['describe', 'pods', '-n', ns]);
        await add(`logs ${ns}`, ['logs', '-n', ns, '--all-containers', '--prefix', '--tail=40', '-l', 'serving.kserve.io/inferenceservice']);
      }
      await add('controller logs', ['logs', '-n', 'kserve', '--all-containers', '--prefix', '--tail=60', '-l', 'app.kubernetes.io/name=kserve-ts-controller']);
      // The node's own logs sit beside its kubeconfig (scripts/kube-node.sh's state folder).
      for (const component of ['kubelet', 'kube-proxy', 'containerd']) {
        const log = path.join(path.dirname(kubeconfigPath), 'logs', `${component}.log`);
        if (existsSync(log)) parts.push(`--- ${component} log (last lines) ---\n${readFileSync(log, 'utf8').split('\n').slice(-30).join('\n')}`);
      }
      return parts.join('\n');
    },
    async release() {
      rmSync(cache, { recursive: true, force: true, maxRetries: 3 });
      if (wasUp) return;
      const r = await run('bash', [SCRIPT, 'down'], 120_000);
      if (r.code !== 0) throw new Error(`kube-node.sh down failed: ${r.stderr}`);
    },
  };
}

function run(cmd: string, args: readonly string[], timeoutMs: number): Promise<KubectlResult> {
  return runProcess(cmd, args, { timeoutMs });
}

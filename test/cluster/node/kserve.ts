/**
 * kserve-ts installed on the node for one suite: the three charts by helm (when the release
 * is not there yet, and uninstalled again by `release()` only then), a namespace of the
 * suite's own, and the kubectl and HTTP helpers the InferenceService suites share. Requests
 * go only to the node's Service range and loopback.
 */
import { chmodSync, mkdirSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { waitFor } from '../../controller/harness/index.js';
import { type TestServer, startServer } from '../../helpers/server.js';
import { manifest } from './fixtures.js';
import { type KubeNode, ROOT, useKubeNode } from './kube-node.js';

export const KSERVE_NS = 'kserve';
export const CHARTS: readonly (readonly [string, string])[] = [
  ['kserve-ts-crd', 'charts/kserve-ts-crd'],
  ['kserve-ts', 'charts/kserve-ts'],
  ['kserve-ts-runtimes', 'charts/kserve-ts-runtimes'],
];
/**
 * Chart values of these suites: one controller replica (two cores carry the node), modelcars
 * on, and the modelcar's user set as KServe documents `uidModelcar` (the server reads the
 * model through the sidecar's /proc/<pid>/root, which needs the same user).
 */
export const SUITE_VALUES: readonly string[] = ['replicas=1', 'config.storageInitializer.enableModelcar=true', 'config.storageInitializer.uidModelcar=1000'];

export interface Obj {
  apiVersion?: string;
  metadata: {
    name: string;
    generation?: number;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    ownerReferences?: { kind: string; name: string }[];
    deletionTimestamp?: string;
  };
  spec?: any;
  status?: any;
}

export interface Condition {
  type: string;
  status?: string;
  reason?: string;
  message?: string;
}
export const condition = (o: Obj, type: string): Condition | undefined => (o.status?.conditions as Condition[] | undefined)?.find((c) => c.type === type);

export interface KserveOnNode {
  readonly node: KubeNode;
  /** The suite's namespace, made by `useKserve` and deleted by `release`. */
  readonly namespace: string;
  /** The host folder the charts configure as the node-local model cache (cacheHostPath). */
  readonly modelCache: string;
  getJson<T = Obj>(args: readonly string[]): Promise<T>;
  apply(objects: readonly object[]): Promise<void>;
  waitIsvcReady(name: string, timeoutMs?: number): Promise<Obj>;
  clusterIP(service: string): Promise<string>;
  readyPods(selector: string): Promise<Obj[]>;
  /** Deletes the namespace, uninstalls the charts if this suite installed them, releases the node. */
  release(): Promise<void>;
}

/** Whether a TCP connection to `host:port` is accepted within 2 s. */
function reachable(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port, timeout: 2_000 });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('connect', () => done(true));
    socket.once('timeout', () => done(false));
    socket.once('error', () => done(false));
  });
}

async function installed(node: KubeNode, release: string): Promise<boolean> {
  const r = await node.helmRun(['status', release, '-n', KSERVE_NS]);
  return r.code === 0;
}

/** `values`: chart values of this suite's own (`key=value`, helm --set) for the kserve-ts chart, after SUITE_VALUES. */
export async function useKserve(namespace: string, values: readonly string[] = []): Promise<KserveOnNode> {
  const node = await useKubeNode();
  const ours = !(await installed(node, 'kserve-ts'));
  // The node-local model cache (docs/multi-model.md) in the node's state folder, which
  // `kube-node.sh down` removes; writable by the pods' user, as an operator would prepare it.
  const modelCache = path.join(path.dirname(node.kubeconfigPath), 'model-cache');
  mkdirSync(modelCache, { recursive: true });
  chmodSync(modelCache, 0o1777);
  for (const [release, chart] of CHARTS) {
    const sets = release === 'kserve-ts' ? [...SUITE_VALUES, `config.storageInitializer.cacheHostPath=${modelCache}`, ...values].flatMap((v) => ['--set', v]) : [];
    const r = await node.helmRun(['upgrade', '--install', release, path.join(ROOT, chart), '-n', KSERVE_NS, '--create-namespace', '--wait', '--timeout', '180s', ...sets], 240_000);
    if (r.code !== 0) throw new Error(`helm upgrade --install ${release}: ${r.stderr}`);
  }
  const getJson = async <T = Obj>(args: readonly string[]): Promise<T> => JSON.parse(await node.kubectlOk([...args, '-o', 'json'])) as T;
  // helm --wait returns once the controller pod is Ready, but kube-proxy may not route its
  // webhook Service yet (a fresh install gets a new ClusterIP): an apply in that gap is
  // refused with "connection refused". Wait until the Service answers.
  const webhookIp = (await getJson(['get', 'service', 'kserve-ts-webhook', '-n', KSERVE_NS])).spec.clusterIP as string;
  await waitFor(() => reachable(webhookIp, 443), { timeoutMs: 60_000, intervalMs: 250, description: `the webhook Service ${webhookIp}:443` });
  await node.kubectlOk(['create', 'namespace', namespace]);
  const readyPods = async (selector: string): Promise<Obj[]> =>
    (await getJson<{ items: Obj[] }>(['get', 'pods', '-n', namespace, '-l', selector])).items.filter(
      (p) => condition(p, 'Ready')?.status === 'True' && !(p.metadata as { deletionTimestamp?: string }).deletionTimestamp,
    );
  return {
    node,
    namespace,
    modelCache,
    getJson,
    async apply(objects) {
      await node.kubectlOk(['apply', '-f', '-'], { input: manifest(objects) });
    },
    async waitIsvcReady(name, timeoutMs = 240_000) {
      const isvc = await waitFor(() => getJson(['get', 'inferenceservice', name, '-n', namespace]), {
        timeoutMs,
        intervalMs: 1_000,
        description: `InferenceService ${name} Ready`,
        until: (o) => condition(o, 'Ready')?.status === 'True',
      });
      // Ready follows the Deployments, and kube-proxy programs a Service's endpoints a moment
      // after its pod turns Ready: a transformer that forwards in that gap gets "connection
      // refused" from {isvc}-predictor (CI stop 36). Wait until every component's Service
      // accepts connections, as a client of KServe waits for its route.
      const components = Object.keys((isvc.status as { components?: object } | undefined)?.components ?? {});
      for (const component of components) {
        const ip = (await getJson(['get', 'service', `${name}-${component}`, '-n', namespace])).spec.clusterIP as string;
        if (ip !== 'None') await waitFor(() => reachable(ip, 80), { timeoutMs: 60_000, intervalMs: 250, description: `the ${name}-${component} Service ${ip}:80` });
      }
      return isvc;
    },
    async clusterIP(service) {
      return (await getJson(['get', 'service', service, '-n', namespace])).spec.clusterIP as string;
    },
    readyPods,
    async release() {
      await node.kubectl(['delete', 'namespace', namespace, '--wait=true', '--timeout=120s'], { timeoutMs: 130_000 });
      if (ours) for (const [release] of [...CHARTS].reverse()) await node.helmRun(['uninstall', release, '-n', KSERVE_NS, '--wait', '--ignore-not-found']);
      await node.release();
    },
  };
}

export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One request on a fresh connection (no keep-alive): each request is routed by the Service anew. */
export function request(url: string, body?: object, timeoutMs = 10_000): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(
      url,
      {
        method: payload === undefined ? 'GET' : 'POST',
        agent: false,
        timeout: timeoutMs,
        headers: payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
      },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString('utf8')));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`timeout after ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(payload);
  });
}

/** A Service answers a little after its pod is Ready (kube-proxy's rules lag): poll it. */
export async function waitRoutable(base: string, model: string): Promise<void> {
  await waitFor(async () => (await request(`${base}/v2/models/${model}/ready`, undefined, 2_000)).status === 200, {
    timeoutMs: 30_000,
    intervalMs: 250,
    description: `${base} to route to a ready ${model}`,
  });
}

/** The answer a local server gives, which the cluster's must equal. */
export async function answerOf(url: string, body: object): Promise<unknown> {
  const r = await request(url, body);
  if (r.status !== 200) throw new Error(`local server: HTTP ${r.status} ${r.body}`);
  return JSON.parse(r.body);
}

export interface KserveSuite {
  /** kserve-ts on the node, in the suite's namespace (set once `beforeAll` ran). */
  readonly k: KserveOnNode;
  /** The local server the suite compares with (only when `localFlags` were given). */
  readonly local: TestServer;
}

/**
 * The hooks every InferenceService suite registers: kserve-ts on the node in `namespace`
 * (with the chart `values` given; and a local server started with `localFlags`, when given) before the tests, the node's
 * diagnostics after a failed test, everything released after. Read `k` / `local` in tests.
 */
export function useKserveSuite(namespace: string, localFlags?: readonly string[], values: readonly string[] = []): KserveSuite {
  let k: KserveOnNode | undefined;
  let local: TestServer | undefined;
  beforeAll(async () => {
    [k, local] = await Promise.all([useKserve(namespace, values), localFlags === undefined ? undefined : startServer([...localFlags])]);
  }, 900_000);
  afterEach(async (ctx) => {
    if (ctx.task.result?.state === 'fail' && k !== undefined) console.log(`diagnostics for "${ctx.task.name}":\n${await k.node.diagnostics([namespace])}`);
  });
  afterAll(async () => {
    await k?.release();
    await local?.close();
  }, 300_000);
  const set = <T>(v: T | undefined, what: string): T => {
    if (v === undefined) throw new Error(`${what} is not set up (beforeAll failed, or no local server was asked for)`);
    return v;
  };
  return {
    get k() {
      return set(k, 'kserve-ts on the node');
    },
    get local() {
      return set(local, 'the local server');
    },
  };
}

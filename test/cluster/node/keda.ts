/**
 * KEDA's operator on the one-node cluster, for the KEDA suite: the release's CRDs and RBAC
 * (config/crd/bases and config/rbac of the module zip scripts/keda-binary.sh builds from),
 * and the operator Deployment in `keda` running the kserve-ts-keda image
 * (scripts/build-images.sh keda) as KEDA's config/manager does, its gRPC certificates made by
 * itself into the Secret `kedaorg-certs` (`--enable-cert-rotation`), nothing patched: there
 * is no metrics adapter and no admission webhook here. The operator alone drives ScaledObjects, polls
 * their triggers and scales between zero and one (activation); 1 -> N through the HPA would
 * need the metrics adapter. Applying is idempotent; `kube-node.sh down` removes it all.
 *
 * Also a stand-in for a Prometheus server on the node address: it answers the instant query
 * KEDA's prometheus scaler sends with a value the test sets, so a test decides when the
 * trigger is active.
 */
import { readFileSync, readdirSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { waitFor } from '../../controller/harness/index.js';
import { runBinScript } from '../../controller/harness/bin-script.js';
import { componentDeployment } from './component-deployment.js';
import { manifest } from './fixtures.js';
import { NODE_IP, type KubeNode } from './kube-node.js';
import { type Obj, condition } from './kserve.js';

const NS = 'keda';
const NAME = 'keda-operator';
const LABELS = { app: NAME };

function operator(): object[] {
  return [
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: NAME, namespace: NS, labels: LABELS } },
    componentDeployment({
      name: NAME,
      namespace: NS,
      labels: LABELS,
      image: 'keda',
      container: {
        args: [
          '--leader-elect=false',
          '--zap-log-level=info',
          '--zap-encoder=console',
          '--enable-cert-rotation=true',
          '--enable-webhook-patching=false',
          '--enable-apiservice-patching=false',
          '--cert-dir=/certs',
        ],
        env: [
          { name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
          { name: 'WATCH_NAMESPACE', value: '' },
        ],
        ports: [{ name: 'metricsservice', containerPort: 9666 }],
        readinessProbe: { httpGet: { path: '/readyz', port: 8081 }, periodSeconds: 3 },
        livenessProbe: { httpGet: { path: '/healthz', port: 8081 }, initialDelaySeconds: 25, periodSeconds: 10 },
        resources: { requests: { cpu: '50m', memory: '100Mi' }, limits: { memory: '1000Mi' } },
        volumeMounts: [{ name: 'certificates', mountPath: '/certs', readOnly: true }],
      },
      // As config/manager: the Secret the operator's certificate rotation writes, mounted once it exists.
      volumes: [{ name: 'certificates', secret: { secretName: 'kedaorg-certs', optional: true } }],
    }),
  ];
}

/** Installs KEDA's CRDs, RBAC and operator (idempotent) and waits for the operator to be Available. */
export async function ensureKeda(node: KubeNode, timeoutMs = 240_000): Promise<void> {
  const config = path.join(path.dirname(path.dirname(await runBinScript('keda-binary.sh'))), 'config');
  const crds = readdirSync(path.join(config, 'crd'))
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => readFileSync(path.join(config, 'crd', f), 'utf8'));
  // scaledjobs.keda.sh is 650 KB: over the last-applied annotation's limit, so server-side.
  await node.kubectlOk(['apply', '--server-side', '--force-conflicts', '-f', '-'], { input: crds.join('\n---\n') });
  // Polled, not `kubectl wait`: that fails on a CRD whose status has no conditions yet.
  await waitFor(async () => JSON.parse(await node.kubectlOk(['get', 'crd', 'scaledobjects.keda.sh', '-o', 'json'])) as Obj, {
    timeoutMs: 60_000,
    intervalMs: 500,
    description: 'CRD scaledobjects.keda.sh Established',
    until: (o) => condition(o, 'Established')?.status === 'True',
  });
  await node.kubectlOk(['apply', '-f', '-'], { input: manifest([{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } }]) });
  const rbac = ['role.yaml', 'role_binding.yaml'].map((f) => readFileSync(path.join(config, 'rbac', f), 'utf8'));
  await node.kubectlOk(['apply', '-f', '-'], { input: rbac.join('\n---\n') });
  await node.kubectlOk(['apply', '-f', '-'], { input: manifest(operator()) });
  await waitFor(async () => JSON.parse(await node.kubectlOk(['get', 'deployment', NAME, '-n', NS, '-o', 'json'])) as Obj, {
    timeoutMs,
    intervalMs: 1_000,
    description: `Deployment ${NS}/${NAME} Available`,
    until: (d) => condition(d, 'Available')?.status === 'True',
  });
}

export interface FakePrometheus {
  /** http://10.77.0.1:<port>, the `serverAddress` of a prometheus trigger. */
  readonly url: string;
  /** The value every instant query answers. */
  value: number;
  /** The queries received, in order. */
  readonly queries: string[];
  close(): Promise<void>;
}

/** A Prometheus HTTP API stand-in on the node address answering `/api/v1/query` with `value`. */
export async function startFakePrometheus(): Promise<FakePrometheus> {
  const queries: string[] = [];
  const state = { value: 0 };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://prometheus');
    if (url.pathname !== '/api/v1/query') {
      res.writeHead(404).end();
      return;
    }
    queries.push(url.searchParams.get('query') ?? '');
    const body = { status: 'success', data: { resultType: 'vector', result: [{ metric: {}, value: [Date.now() / 1000, String(state.value)] }] } };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, NODE_IP, resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${NODE_IP}:${port}`,
    get value() {
      return state.value;
    },
    set value(v: number) {
      state.value = v;
    },
    queries,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * metrics-server on the one-node cluster, as its upstream manifest (components.yaml) deploys
 * it: a Deployment in kube-system running the kserve-ts-metrics-server image
 * (scripts/build-images.sh metrics-server), its RBAC, a Service and the APIService
 * `v1beta1.metrics.k8s.io` through which the HPA controller reads pod CPU and memory. The
 * apiserver reaches it with the front-proxy client certificate scripts/kube-node.sh makes;
 * metrics-server scrapes the kubelet at the node's InternalIP (10.77.0.1:10250) every 15 s,
 * without verifying the kubelet's serving certificate (`--kubelet-insecure-tls`, as the
 * upstream docs advise for test clusters). Applying is idempotent: a suite that finds it
 * running reuses it; `kube-node.sh down` removes it with everything else.
 */
import { waitFor } from '../../controller/harness/index.js';
import { componentDeployment } from './component-deployment.js';
import { manifest } from './fixtures.js';
import type { KubeNode } from './kube-node.js';
import { type Obj, condition } from './kserve.js';

const NS = 'kube-system';
const NAME = 'metrics-server';
const LABELS = { 'k8s-app': NAME };
/** How often metrics-server scrapes the kubelet: upstream default 60 s; it must exceed the kubelet request timeout (10 s), and 15 s is the lowest upstream advises. */
export const METRIC_RESOLUTION_S = 15;

function objects(): object[] {
  const role = (kind: string, name: string) => ({ apiGroup: 'rbac.authorization.k8s.io', kind, name });
  const sa = [{ kind: 'ServiceAccount', name: NAME, namespace: NS }];
  return [
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: NAME, namespace: NS, labels: LABELS } },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: `system:${NAME}`, labels: LABELS },
      rules: [
        { apiGroups: [''], resources: ['nodes/metrics'], verbs: ['get'] },
        { apiGroups: [''], resources: ['pods', 'nodes'], verbs: ['get', 'list', 'watch'] },
      ],
    },
    // The request-header CA and allowed names, published by the apiserver in kube-system.
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: `${NAME}-auth-reader`, namespace: NS, labels: LABELS },
      roleRef: role('Role', 'extension-apiserver-authentication-reader'),
      subjects: sa,
    },
    // Token reviews and subject access reviews for the callers the apiserver vouches for.
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: `${NAME}:system:auth-delegator`, labels: LABELS },
      roleRef: role('ClusterRole', 'system:auth-delegator'),
      subjects: sa,
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: `system:${NAME}`, labels: LABELS },
      roleRef: role('ClusterRole', `system:${NAME}`),
      subjects: sa,
    },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: NAME, namespace: NS, labels: LABELS },
      spec: { selector: LABELS, ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: 'https' }] },
    },
    componentDeployment({
      name: NAME,
      namespace: NS,
      labels: LABELS,
      image: 'metrics-server',
      container: {
        args: [
          '--cert-dir=/tmp',
          '--secure-port=10250',
          '--kubelet-preferred-address-types=InternalIP',
          '--kubelet-use-node-status-port',
          '--kubelet-insecure-tls',
          `--metric-resolution=${METRIC_RESOLUTION_S}s`,
        ],
        ports: [{ name: 'https', containerPort: 10250, protocol: 'TCP' }],
        readinessProbe: { httpGet: { path: '/readyz', port: 'https', scheme: 'HTTPS' }, periodSeconds: 5, failureThreshold: 3 },
        livenessProbe: { httpGet: { path: '/livez', port: 'https', scheme: 'HTTPS' }, periodSeconds: 10, failureThreshold: 3 },
        resources: { requests: { cpu: '20m', memory: '64Mi' }, limits: { memory: '256Mi' } },
        volumeMounts: [{ name: 'tmp-dir', mountPath: '/tmp' }],
      },
      volumes: [{ name: 'tmp-dir', emptyDir: {} }],
    }),
    {
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      metadata: { name: 'v1beta1.metrics.k8s.io', labels: LABELS },
      spec: {
        service: { name: NAME, namespace: NS, port: 443 },
        group: 'metrics.k8s.io',
        version: 'v1beta1',
        // metrics-server serves a self-signed certificate (upstream's manifest does the same).
        insecureSkipTLSVerify: true,
        groupPriorityMinimum: 100,
        versionPriority: 100,
      },
    },
  ];
}

/**
 * Deploys metrics-server (idempotent) and waits until the APIService is Available and the
 * resource metrics API has the node's usage: from then on an HPA can read pod metrics.
 */
export async function ensureMetricsServer(node: KubeNode, timeoutMs = 180_000): Promise<void> {
  await node.kubectlOk(['apply', '-f', '-'], { input: manifest(objects()) });
  const getJson = async (args: readonly string[]): Promise<Obj> => JSON.parse(await node.kubectlOk([...args, '-o', 'json'])) as Obj;
  await waitFor(() => getJson(['get', 'apiservice', 'v1beta1.metrics.k8s.io']), {
    timeoutMs,
    intervalMs: 1_000,
    description: 'APIService v1beta1.metrics.k8s.io Available',
    until: (o) => condition(o, 'Available')?.status === 'True',
  });
  await waitFor(async () => JSON.parse(await node.kubectlOk(['get', '--raw', '/apis/metrics.k8s.io/v1beta1/nodes'])) as { items: { usage?: { cpu?: string } }[] }, {
    timeoutMs,
    intervalMs: 2_000,
    description: "the node's usage in the resource metrics API",
    until: (l) => l.items.some((n) => n.usage?.cpu !== undefined),
  });
}

/**
 * A Gateway API implementation on the one-node cluster, for the canary suite: the Gateway API
 * standard-channel CRDs (scripts/gateway-api-crds.sh), Traefik v3 (the kserve-ts-traefik
 * image, scripts/build-images.sh traefik) with its kubernetesGateway provider and the RBAC
 * of Traefik's own docs (kubernetes-gateway-rbac.yml), the GatewayClass `traefik`, and the
 * Gateway the controller's HTTPRoutes name (KServe's default `kserve/kserve-ingress-gateway`)
 * with one HTTP listener for routes of every namespace. Traefik maps a listener to the entry
 * point on the same port, so both are 8000 (nobody may not bind 80); its Service takes port 80
 * there. Traefik sends straight to the pods of each backend Service (its EndpointSlices),
 * weighted round robin across an HTTPRoute rule's backendRefs, and writes the route status
 * the controller's IngressReady reads. No outbound calls: the version check and usage report
 * are off. Applying is idempotent; `kube-node.sh down` removes it all.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { waitFor } from '../../controller/harness/index.js';
import { runBinScript } from '../../controller/harness/bin-script.js';
import { componentDeployment } from './component-deployment.js';
import { manifest } from './fixtures.js';
import type { KubeNode } from './kube-node.js';
import { KSERVE_NS, type Obj, condition } from './kserve.js';

const NS = 'kserve-ts-gateway';
const NAME = 'traefik';
const LABELS = { app: NAME };
/** The Gateway the charts' ingress config names (`ingress.kserveIngressGateway`, KServe's default). */
export const GATEWAY = { namespace: KSERVE_NS, name: 'kserve-ingress-gateway' } as const;
/** The chart values that turn the controller's HTTPRoutes on, attached to GATEWAY. */
export const GATEWAY_API_VALUES: readonly string[] = ['config.ingress.enableGatewayApi=true', `config.ingress.kserveIngressGateway=${GATEWAY.namespace}/${GATEWAY.name}`];
const LISTENER_PORT = 8000;
const PING_PORT = 8080;

function objects(): object[] {
  const gw = 'gateway.networking.k8s.io';
  return [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } },
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: NAME, namespace: NS, labels: LABELS } },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'kserve-ts-traefik-gateway', labels: LABELS },
      rules: [
        { apiGroups: [''], resources: ['namespaces'], verbs: ['list', 'watch'] },
        { apiGroups: [''], resources: ['services', 'secrets', 'configmaps'], verbs: ['get', 'list', 'watch'] },
        { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['list', 'watch'] },
        {
          apiGroups: [gw],
          resources: ['gatewayclasses', 'gateways', 'httproutes', 'grpcroutes', 'tcproutes', 'tlsroutes', 'referencegrants', 'backendtlspolicies'],
          verbs: ['get', 'list', 'watch'],
        },
        {
          apiGroups: [gw],
          resources: [
            'gatewayclasses/status',
            'gateways/status',
            'httproutes/status',
            'grpcroutes/status',
            'tcproutes/status',
            'tlsroutes/status',
            'referencegrants/status',
            'backendtlspolicies/status',
          ],
          verbs: ['update'],
        },
      ],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'kserve-ts-traefik-gateway', labels: LABELS },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'kserve-ts-traefik-gateway' },
      subjects: [{ kind: 'ServiceAccount', name: NAME, namespace: NS }],
    },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: NAME, namespace: NS, labels: LABELS },
      spec: { selector: LABELS, ports: [{ name: 'web', port: 80, protocol: 'TCP', targetPort: 'web' }] },
    },
    componentDeployment({
      name: NAME,
      namespace: NS,
      labels: LABELS,
      image: 'traefik',
      container: {
        args: [
          `--entryPoints.web.address=:${LISTENER_PORT}`,
          `--entryPoints.traefik.address=:${PING_PORT}`,
          '--ping=true',
          '--providers.kubernetesGateway=true',
          '--global.checkNewVersion=false',
          '--global.sendAnonymousUsage=false',
          '--log.level=INFO',
        ],
        ports: [
          { name: 'web', containerPort: LISTENER_PORT, protocol: 'TCP' },
          { name: 'ping', containerPort: PING_PORT, protocol: 'TCP' },
        ],
        readinessProbe: { httpGet: { path: '/ping', port: 'ping' }, periodSeconds: 2, failureThreshold: 3 },
        resources: { requests: { cpu: '50m', memory: '64Mi' }, limits: { memory: '512Mi' } },
      },
    }),
    { apiVersion: `${gw}/v1`, kind: 'GatewayClass', metadata: { name: NAME }, spec: { controllerName: 'traefik.io/gateway-controller' } },
    {
      apiVersion: `${gw}/v1`,
      kind: 'Gateway',
      metadata: { name: GATEWAY.name, namespace: GATEWAY.namespace },
      spec: {
        gatewayClassName: NAME,
        listeners: [{ name: 'http', protocol: 'HTTP', port: LISTENER_PORT, allowedRoutes: { namespaces: { from: 'All' } } }],
      },
    },
  ];
}

/**
 * Installs the Gateway API CRDs, Traefik and the Gateway (idempotent), waits until Traefik
 * has programmed the Gateway, and returns the Traefik Service's address (port 80).
 */
export async function ensureTraefikGateway(node: KubeNode, timeoutMs = 180_000): Promise<string> {
  const getJson = async (args: readonly string[]): Promise<Obj> => JSON.parse(await node.kubectlOk([...args, '-o', 'json'])) as Obj;
  const crdDir = await runBinScript('gateway-api-crds.sh');
  const crds = readdirSync(crdDir)
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => readFileSync(path.join(crdDir, f), 'utf8'));
  await node.kubectlOk(['apply', '--server-side', '--force-conflicts', '-f', '-'], { input: crds.join('\n---\n') });
  for (const crd of ['gatewayclasses', 'gateways', 'httproutes']) {
    // Polled, not `kubectl wait`: that fails on a CRD whose status has no conditions yet.
    await waitFor(() => getJson(['get', 'crd', `${crd}.gateway.networking.k8s.io`]), {
      timeoutMs: 60_000,
      intervalMs: 500,
      description: `CRD ${crd}.gateway.networking.k8s.io Established`,
      until: (o) => condition(o, 'Established')?.status === 'True',
    });
  }
  await node.kubectlOk(['apply', '-f', '-'], { input: manifest(objects()) });
  await waitFor(() => getJson(['get', 'deployment', NAME, '-n', NS]), {
    timeoutMs,
    intervalMs: 1_000,
    description: `Deployment ${NS}/${NAME} Available`,
    until: (d) => condition(d, 'Available')?.status === 'True',
  });
  await waitFor(() => getJson(['get', 'gateway', GATEWAY.name, '-n', GATEWAY.namespace]), {
    timeoutMs,
    intervalMs: 1_000,
    description: `Gateway ${GATEWAY.namespace}/${GATEWAY.name} Programmed by Traefik`,
    until: (g) => condition(g, 'Programmed')?.status === 'True',
  });
  return `http://${(await getJson(['get', 'service', NAME, '-n', NS])).spec.clusterIP as string}`;
}

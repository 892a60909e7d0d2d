/**
 * The `ingress` key of `inferenceservice-config` (KServe's `IngressConfig`), as far as
 * Standard mode uses it: the domain template for hosts and `status.url`, the Ingress class,
 * and the Gateway API switch with the Gateway that HTTPRoutes attach to. Checked once when
 * the ConfigMap is read, like KServe's `NewIngressConfig` (a Gateway API config without a
 * `namespace/name` gateway is an error).
 */
import { ConfigError, boolField, stringField } from './section.js';

export interface IngressConfig {
  ingressDomain: string;
  /** Go-template subset: `{{ .Name }}`, `{{ .Namespace }}`, `{{ .IngressDomain }}`. */
  domainTemplate: string;
  urlScheme: string;
  /** `spec.ingressClassName` of the Ingress; unset leaves the cluster's default class. */
  ingressClassName: string | undefined;
  /** No Ingress or HTTPRoute at all (the URL is still computed). */
  disableIngressCreation: boolean;
  /** HTTPRoutes instead of an Ingress. */
  enableGatewayApi: boolean;
  /** The Gateway the HTTPRoutes attach to. */
  kserveIngressGateway: { namespace: string; name: string };
  /** Leave out the HTTPRoute rules' request timeout (for Gateways that lack it). */
  disableHTTPRouteTimeout: boolean;
  /**
   * Path-based routing on the ingress domain (`/serving/{{ .Namespace }}/{{ .Name }}`):
   * KServe's Standard mode uses it for the top-level HTTPRoute only.
   */
  pathTemplate: string | undefined;
  /** More domains the top-level HTTPRoute answers on (`{isvc}-{ns}.{each}`). */
  additionalIngressDomains: readonly string[];
}

export const DEFAULT_DOMAIN_TEMPLATE = '{{ .Name }}-{{ .Namespace }}.{{ .IngressDomain }}';

export function parseIngressConfig(s: Record<string, unknown>): IngressConfig {
  const gateway = stringField('ingress', s, 'kserveIngressGateway', 'kserve/kserve-ingress-gateway');
  const enableGatewayApi = boolField('ingress', s, 'enableGatewayApi', false);
  const [namespace, name, ...extra] = gateway.split('/');
  if (!namespace || !name || extra.length > 0) {
    if (enableGatewayApi) throw new ConfigError('ingress', `kserveIngressGateway '${gateway}' must be <namespace>/<name>`);
  }
  const className = stringField('ingress', s, 'ingressClassName', '');
  const domains = s['additionalIngressDomains'] ?? [];
  if (!Array.isArray(domains) || domains.some((d) => typeof d !== 'string')) throw new ConfigError('ingress', `'additionalIngressDomains' must be a list of domain names`);
  const pathTemplate = stringField('ingress', s, 'pathTemplate', '');
  if (pathTemplate !== '' && !pathTemplate.startsWith('/')) throw new ConfigError('ingress', `pathTemplate '${pathTemplate}' must be an absolute path`);
  return {
    ingressDomain: stringField('ingress', s, 'ingressDomain', 'example.com'),
    domainTemplate: stringField('ingress', s, 'domainTemplate', DEFAULT_DOMAIN_TEMPLATE),
    urlScheme: stringField('ingress', s, 'urlScheme', 'http'),
    ingressClassName: className === '' ? undefined : className,
    disableIngressCreation: boolField('ingress', s, 'disableIngressCreation', false),
    enableGatewayApi,
    kserveIngressGateway: { namespace: namespace ?? '', name: name ?? '' },
    disableHTTPRouteTimeout: boolField('ingress', s, 'disableHTTPRouteTimeout', false),
    pathTemplate: pathTemplate === '' ? undefined : pathTemplate,
    additionalIngressDomains: domains as string[],
  };
}

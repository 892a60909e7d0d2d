/**
 * Hosts from the ingress domain template (KServe's `GenerateDomainName`): the template is
 * rendered for an object name (the ISVC's for the top-level host, `{isvc}-predictor` etc.
 * for a component's) and must give a fully qualified domain name, else the InferenceService
 * reports why instead of getting an Ingress the API server would refuse.
 */
import type { InferenceService } from '../../api/inference-service.js';
import { type IngressConfig, renderDomain } from '../../config/inferenceservice-config.js';

const LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

export class DomainError extends Error {
  constructor(host: string, why: string) {
    super(`invalid ${host.startsWith('/') ? 'path' : 'domain name'} '${host}' from the ingress config: ${why}`);
    this.name = 'DomainError';
  }
}

/** `owner`: the InferenceService (or InferenceGraph) whose namespace, annotations and labels the template reads. */
export function hostFor(name: string, owner: Pick<InferenceService, 'metadata'>, ingress: IngressConfig): string {
  const host = renderDomain(ingress.domainTemplate, {
    Name: name,
    Namespace: owner.metadata.namespace!,
    IngressDomain: ingress.ingressDomain,
    Annotations: owner.metadata.annotations ?? {},
    Labels: owner.metadata.labels ?? {},
  });
  const labels = host.split('.');
  if (host.length > 253) throw new DomainError(host, 'longer than 253 characters');
  if (labels.length < 2) throw new DomainError(host, 'a fully qualified name needs at least two labels');
  const bad = labels.find((l) => l.length > 63 || !LABEL.test(l));
  if (bad !== undefined) throw new DomainError(host, `label '${bad}' is not a lower case RFC 1123 label of at most 63 characters`);
  return host;
}

/**
 * The path of `ingress.pathTemplate` for an ISVC (KServe's `GenerateUrlPath`: `{{ .Name }}`,
 * `{{ .Namespace }}`), without a trailing slash; it must stay a plain absolute path.
 */
export function pathFor(isvc: InferenceService, template: string): string {
  const values: Record<string, string> = { Name: isvc.metadata.name!, Namespace: isvc.metadata.namespace! };
  const path = template.replace(/\{\{\s*\.(Name|Namespace)\s*\}\}/g, (_m, key: string) => values[key]!);
  if (!/^\/[A-Za-z0-9._~!$&'()*+,;=:@%/-]*$/.test(path) || path.includes('//')) {
    throw new DomainError(path, 'the ingress pathTemplate must give an absolute URL path without a scheme, host or query');
  }
  return path.replace(/\/$/, '');
}

/**
 * KServe's `GetAdditionalHosts`: the top-level host with the ingress domain swapped for each
 * of `additionalIngressDomains` (deduplicated; a result that is not a DNS name is skipped, as
 * KServe logs and skips it).
 */
export function additionalHosts(topHost: string, ingress: IngressConfig): string[] {
  if (!topHost.endsWith(ingress.ingressDomain)) return [];
  const sub = topHost.slice(0, topHost.length - ingress.ingressDomain.length);
  if (sub === '') return [];
  const out: string[] = [];
  for (const domain of new Set(ingress.additionalIngressDomains)) {
    const host = `${sub}${domain}`;
    if (host.length <= 253 && host.split('.').every((l) => l.length <= 63 && LABEL.test(l)) && !out.includes(host) && host !== topHost) out.push(host);
  }
  return out;
}

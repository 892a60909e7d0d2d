/**
 * The networking.k8s.io/v1 Ingress `{isvc}` that KServe's raw ingress reconciler creates in
 * Standard mode: `ingressClassName` from the config, one host rule per way in, each path `/`
 * Prefix to a component Service's port 80:
 *
 * - the top-level host `{isvc}-{ns}.{domain}` → the transformer when there is one, else the
 *   predictor;
 * - `{isvc}-transformer-{ns}.{domain}` → the transformer (KServe points this host at the
 *   predictor, which looks like a slip: kserve-ts sends it to the transformer it names);
 * - `{isvc}-predictor-{ns}.{domain}` → the predictor;
 * - with an explainer, `{isvc}-explainer-{ns}.{domain}` → the explainer, and on the
 *   top-level host the path `/v1/models/{isvc}:explain` (Exact, ahead of `/`) → the
 *   explainer. KServe writes its explain regex `^/v1/models/[\w-]+:explain$` as an Ingress
 *   path, which the API server refuses (paths must start with `/`; Ingress has no portable
 *   regex), so kserve-ts matches the model name the explainer is given, `--model_name {isvc}`.
 *   KServe routes explain only when there is no transformer; kserve-ts routes it either way,
 *   as KServe's HTTPRoutes do.
 *
 * The ISVC's annotations are copied as KServe does; owned by the ISVC.
 */
import type { V1HTTPIngressPath, V1Ingress, V1IngressRule } from '@kubernetes/client-node';
import type { InferenceService } from '../../api/inference-service.js';
import type { IngressConfig } from '../../config/inferenceservice-config.js';
import { LABEL_ISVC, SERVICE_PORT, componentName, predictorName } from '../../constants.js';
import { routingMetadata } from '../component-metadata.js';
import { hostFor } from './domain.js';

export function desiredIngress(isvc: InferenceService, ingress: IngressConfig): V1Ingress {
  const name = isvc.metadata.name!;
  const predictor = predictorName(name, isvc.spec.predictor.name);
  const transformer = isvc.spec.transformer ? componentName(name, 'transformer') : undefined;
  const explainer = isvc.spec.explainer ? componentName(name, 'explainer') : undefined;
  const top = rule(hostFor(name, isvc, ingress), transformer ?? predictor);
  if (explainer) top.http!.paths.unshift(path(explainPath(name), 'Exact', explainer));
  const rules: V1IngressRule[] = [top];
  if (transformer) rules.push(rule(hostFor(transformer, isvc, ingress), transformer));
  if (explainer) rules.push(rule(hostFor(explainer, isvc, ingress), explainer));
  // The host keeps `{isvc}-predictor` whatever predictor.name says (KServe's route name).
  rules.push(rule(hostFor(componentName(name, 'predictor'), isvc, ingress), predictor));
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    // The ISVC label (not set by KServe) lets `kubectl get ingress -l` find it.
    metadata: routingMetadata(isvc, name, { [LABEL_ISVC]: name }),
    spec: {
      ...(ingress.ingressClassName ? { ingressClassName: ingress.ingressClassName } : {}),
      rules,
    },
  };
}

/** The V1 explain path of the model the explainer serves (`--model_name {isvc}`). */
export function explainPath(isvc: string): string {
  return `/v1/models/${isvc}:explain`;
}

function rule(host: string, service: string): V1IngressRule {
  return { host, http: { paths: [path('/', 'Prefix', service)] } };
}

function path(value: string, pathType: 'Prefix' | 'Exact', service: string): V1HTTPIngressPath {
  return { path: value, pathType, backend: { service: { name: service, port: { number: SERVICE_PORT } } } };
}

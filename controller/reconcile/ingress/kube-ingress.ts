/**
 * The networking.k8s.io/v1 Ingress `{isvc}` that KServe's raw ingress reconciler creates in
 * Standard mode: `ingressClassName` from the config, one host rule per way in, each path `/`
 * Prefix to a component Service's port 80:
 *
 * - the top-level host `{isvc}-{ns}.{domain}` → the transformer when there is one, else the
 *   predictor;
 * - `{isvc}-transformer-{ns}.{domain}` → the transformer (KServe points this host at the
 *   predictor, which looks like a slip: kserve-ts sends it to the transformer it names);
 * - `{isvc}-predictor-{ns}.{domain}` → the predictor.
 *
 * The ISVC's annotations are copied as KServe does; owned by the ISVC.
 */
import type { V1Ingress, V1IngressRule } from '@kubernetes/client-node';
import type { InferenceService } from '../../api/inference-service.js';
import type { IngressConfig } from '../../config/inferenceservice-config.js';
import { LABEL_ISVC, SERVICE_PORT, componentName } from '../../constants.js';
import { routingMetadata } from '../component-metadata.js';
import { hostFor } from './domain.js';

export function desiredIngress(isvc: InferenceService, ingress: IngressConfig): V1Ingress {
  const name = isvc.metadata.name!;
  const predictor = componentName(name, 'predictor');
  const transformer = isvc.spec.transformer ? componentName(name, 'transformer') : undefined;
  const rules: V1IngressRule[] = [rule(hostFor(name, isvc, ingress), transformer ?? predictor)];
  if (transformer) rules.push(rule(hostFor(transformer, isvc, ingress), transformer));
  rules.push(rule(hostFor(predictor, isvc, ingress), predictor));
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

function rule(host: string, service: string): V1IngressRule {
  return {
    host,
    http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: service, port: { number: SERVICE_PORT } } } }] },
  };
}

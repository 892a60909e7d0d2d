/**
 * `serving.kserve.io/enable-prometheus-scraping: "true"` (KServe's metrics aggregator pod
 * mutator): the pod (a Deployment's, or a Knative revision's) carries the `prometheus.io/*`
 * annotations a Prometheus pod scrape job reads. KServe points them at Knative's queue-proxy
 * (port 9091); a kserve-ts server serves its own `/metrics` on its HTTP port, so that is
 * where they point (the first port of the serving container; a custom container that serves
 * metrics elsewhere sets the annotations itself, and those it sets are kept).
 */
import { ANN_ENABLE_PROMETHEUS_SCRAPING } from '../constants.js';
import type { ComponentPlan } from './component-plan.js';

export const PROMETHEUS_SCRAPE = 'prometheus.io/scrape';
export const PROMETHEUS_PORT = 'prometheus.io/port';
export const PROMETHEUS_PATH = 'prometheus.io/path';
const METRICS_PATH = '/metrics';

/** The pod template annotations with the scrape annotations added when the ISVC asks for them. */
export function withPrometheusScrape(isvcAnnotations: Readonly<Record<string, string>> | undefined, plan: ComponentPlan): Record<string, string> {
  const pod = { ...plan.podAnnotations };
  if (isvcAnnotations?.[ANN_ENABLE_PROMETHEUS_SCRAPING] !== 'true') return pod;
  const port = plan.ports[0]?.containerPort;
  return {
    [PROMETHEUS_SCRAPE]: 'true',
    ...(port !== undefined ? { [PROMETHEUS_PORT]: String(port) } : {}),
    [PROMETHEUS_PATH]: METRICS_PATH,
    ...pod,
  };
}

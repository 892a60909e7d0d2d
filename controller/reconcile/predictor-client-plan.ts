/**
 * Components that are a user's container told where the predictor is: the transformer and
 * the explainer. Both get the arguments KServe gives them (`--model_name`,
 * `--predictor_host {isvc}-predictor.{ns}`, `--http_port 8080`, each only when the user has
 * not written it), the first container renamed `kserve-container` with the default
 * resources, and every other PodSpec field of the component as written.
 */
import type { ExplainerSpec, InferenceService, TransformerSpec } from '../api/inference-service.js';
import type { InferenceServiceConfig } from '../config/inferenceservice-config.js';
import { DEFAULT_HTTP_PORT, KSERVE_CONTAINER, componentName, predictorName } from '../constants.js';
import { componentAnnotations, componentLabels } from './component-metadata.js';
import type { ComponentPlan } from './component-plan.js';
import { componentPodSpec } from './component-pod-spec.js';
import { renderContainer } from './placeholders.js';

type PredictorClient = 'transformer' | 'explainer';

export function planTransformer(isvc: InferenceService, config: InferenceServiceConfig): ComponentPlan | undefined {
  return planPredictorClient(isvc, config, 'transformer', isvc.spec.transformer);
}

export function planExplainer(isvc: InferenceService, config: InferenceServiceConfig): ComponentPlan | undefined {
  return planPredictorClient(isvc, config, 'explainer', isvc.spec.explainer);
}

function planPredictorClient(
  isvc: InferenceService,
  config: InferenceServiceConfig,
  component: PredictorClient,
  spec: TransformerSpec | ExplainerSpec | undefined,
): ComponentPlan | undefined {
  const [first, ...rest] = spec?.containers ?? [];
  if (!spec || !first) return undefined;
  const name = isvc.metadata.name!;
  const args = [...(first.args ?? [])];
  const ensure = (flag: string, value: string): void => {
    if (!args.some((a) => a === flag || a.startsWith(`${flag}=`))) args.push(flag, value);
  };
  ensure('--model_name', name);
  ensure('--predictor_host', `${predictorName(name, isvc.spec.predictor.name)}.${isvc.metadata.namespace}`);
  ensure('--http_port', String(DEFAULT_HTTP_PORT));
  const r = config.resources;
  const container = renderContainer(
    {
      ...first,
      name: KSERVE_CONTAINER,
      args,
      resources: first.resources ?? { requests: { cpu: r.cpuRequest, memory: r.memoryRequest }, limits: { cpu: r.cpuLimit, memory: r.memoryLimit } },
    },
    isvc.metadata,
  );
  const annotations = componentAnnotations(isvc, spec.annotations);
  return {
    component,
    name: componentName(name, component),
    labels: componentLabels(isvc, component, spec.labels),
    annotations,
    podAnnotations: annotations,
    podSpec: { ...componentPodSpec(spec), containers: [container, ...rest] },
    ports: container.ports && container.ports.length > 0 ? container.ports : [{ containerPort: DEFAULT_HTTP_PORT, name: 'http1', protocol: 'TCP' }],
    scaling: spec,
  };
}

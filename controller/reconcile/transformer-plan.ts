/**
 * The transformer: the user's container, told where the predictor is with the arguments
 * KServe's transformers take (`--model_name`, `--predictor_host`, `--http_port`), in a pod
 * with every other PodSpec field of the transformer as written.
 */
import type { InferenceService } from '../api/inference-service.js';
import type { InferenceServiceConfig } from '../config/inferenceservice-config.js';
import { DEFAULT_HTTP_PORT, KSERVE_CONTAINER, componentName } from '../constants.js';
import { componentAnnotations, componentLabels } from './component-metadata.js';
import type { ComponentPlan } from './component-plan.js';
import { renderContainer } from './placeholders.js';
import { componentPodSpec } from './component-pod-spec.js';

export function planTransformer(isvc: InferenceService, config: InferenceServiceConfig): ComponentPlan | undefined {
  const transformer = isvc.spec.transformer;
  const [first, ...rest] = transformer?.containers ?? [];
  if (!transformer || !first) return undefined;
  const name = isvc.metadata.name!;
  const predictorHost = `${componentName(name, 'predictor')}.${isvc.metadata.namespace}`;
  const args = [...(first.args ?? [])];
  const ensure = (flag: string, value: string): void => {
    if (!args.some((a) => a === flag || a.startsWith(`${flag}=`))) args.push(flag, value);
  };
  ensure('--model_name', name);
  ensure('--predictor_host', predictorHost);
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
  const annotations = componentAnnotations(isvc, transformer.annotations);
  return {
    component: 'transformer',
    name: componentName(name, 'transformer'),
    labels: componentLabels(isvc, 'transformer', transformer.labels),
    annotations,
    podAnnotations: annotations,
    podSpec: { ...componentPodSpec(transformer), containers: [container, ...rest] },
    ports: container.ports && container.ports.length > 0 ? container.ports : [{ containerPort: DEFAULT_HTTP_PORT, name: 'http1', protocol: 'TCP' }],
    scaling: transformer,
  };
}

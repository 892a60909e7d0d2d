/**
 * The components that are a user's container told where the predictor is (transformer,
 * explainer) and the logger arguments every component's kserve-container gets: one table of
 * {InferenceService, expected container arguments}. The objects these become on a real API
 * server are test/controller/isvc-fields.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { InferenceService, InferenceServiceSpec } from '../../controller/api/inference-service.js';
import { parseInferenceServiceConfig } from '../../controller/config/inferenceservice-config.js';
import type { ComponentPlan } from '../../controller/reconcile/component-plan.js';
import { withLogger } from '../../controller/reconcile/logger-args.js';
import { planExplainer, planTransformer } from '../../controller/reconcile/predictor-client-plan.js';

const config = parseInferenceServiceConfig(undefined);

function isvc(spec: Partial<InferenceServiceSpec>): InferenceService {
  return {
    apiVersion: 'serving.kserve.io/v1beta1',
    kind: 'InferenceService',
    metadata: { name: 'iris', namespace: 'ml', uid: 'u', labels: { team: 'a' } },
    spec: { predictor: { model: { modelFormat: { name: 'onnx' } } }, ...spec },
  };
}

const args = (plan: ComponentPlan | undefined): string[] | undefined => plan?.podSpec.containers[0]?.args;

describe('transformer and explainer plans (one builder)', () => {
  it.each([
    ['transformer', planTransformer],
    ['explainer', planExplainer],
  ] as const)('%s: {isvc}-%s, kserve-container told the predictor host, its PodSpec fields kept', (component, plan) => {
    const p = plan(
      isvc({
        [component]: {
          containers: [
            { name: 'mine', image: 'x:1' },
            { name: 'side', image: 's' },
          ],
          nodeSelector: { gpu: 'no' },
          labels: { l: '1' },
        },
      }),
      config,
    )!;
    expect(p.component).toBe(component);
    expect(p.name).toBe(`iris-${component}`);
    expect(p.labels).toMatchObject({ team: 'a', l: '1', component });
    expect(p.podSpec.nodeSelector).toEqual({ gpu: 'no' });
    expect(p.podSpec.containers.map((c) => c.name)).toEqual(['kserve-container', 'side']);
    expect(args(p)).toEqual(['--model_name', 'iris', '--predictor_host', 'iris-predictor.ml', '--http_port', '8080']);
    expect(p.ports).toEqual([{ containerPort: 8080, name: 'http1', protocol: 'TCP' }]);
  });

  it("keeps the user's own flags, in either spelling", () => {
    const p = planExplainer(isvc({ explainer: { containers: [{ name: 'e', args: ['--model_name=other', '--http_port', '9000'] }] } }), config);
    expect(args(p)).toEqual(['--model_name=other', '--http_port', '9000', '--predictor_host', 'iris-predictor.ml']);
  });

  it('no component, no plan', () => {
    expect(planExplainer(isvc({}), config)).toBeUndefined();
    expect(planTransformer(isvc({}), config)).toBeUndefined();
  });
});

describe('logger arguments on the kserve-container', () => {
  const identity = (component: string) => ['--logger_inference_service', 'iris', '--logger_namespace', 'ml', '--logger_component', component, '--logger_endpoint', 'default'];
  const configured = parseInferenceServiceConfig({ logger: JSON.stringify({ defaultUrl: 'http://broker.ml.svc' }) });
  it.each<[string, Record<string, unknown>, typeof config, string[]]>([
    [
      'url, mode and headers as written',
      { url: 'http://sink:8080/e', mode: 'request', metadataHeaders: ['x-tenant', 'traceparent'] },
      config,
      ['--logger_url', 'http://sink:8080/e', '--logger_mode', 'request', ...identity('explainer'), '--logger_metadata_headers', 'x-tenant,traceparent'],
    ],
    ["no url: KServe's shipped defaultUrl, mode all", {}, config, ['--logger_url', 'http://default-broker', '--logger_mode', 'all', ...identity('explainer')]],
    ['no url: the ConfigMap logger.defaultUrl', { mode: 'response' }, configured, ['--logger_url', 'http://broker.ml.svc', '--logger_mode', 'response', ...identity('explainer')]],
  ])('%s', (_n, logger, cfg, want) => {
    const i = isvc({ explainer: { containers: [{ name: 'e', args: ['--a'] }, { name: 'side' }] } });
    const p = withLogger(planExplainer(i, cfg)!, i, logger, cfg.logger);
    expect(args(p)).toEqual(['--a', '--model_name', 'iris', '--predictor_host', 'iris-predictor.ml', '--http_port', '8080', ...want]);
    expect(p.podSpec.containers[1]?.args).toBeUndefined();
  });

  it('no logger: the plan unchanged', () => {
    const i = isvc({ transformer: { containers: [{ name: 't' }] } });
    const p = planTransformer(i, config)!;
    expect(withLogger(p, i, undefined, config.logger)).toBe(p);
  });

  it('refuses a logger.defaultUrl that is not a string in the ConfigMap', () => {
    expect(() => parseInferenceServiceConfig({ logger: '{"defaultUrl": 3}' })).toThrow("inferenceservice-config 'logger': 'defaultUrl' must be a string");
  });
});

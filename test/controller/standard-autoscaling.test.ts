/**
 * Standard mode autoscaling objects as pure functions, with KServe's own test cases as the
 * oracle: the HPA's metrics (`reconcilers/hpa/hpa_reconciler_test.go` TestGetHPAMetrics and
 * TestCreateHPA), the ScaledObject (`reconcilers/keda/keda_reconciler_test.go`), and the
 * stop annotation and Prometheus scrape annotations.
 */
import type { V2MetricSpec } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { ComponentExtensionSpec, MetricsSpec } from '../../controller/api/inference-service.js';
import type { AutoscalerConfig } from '../../controller/config/inferenceservice-config.js';
import type { ComponentPlan } from '../../controller/reconcile/component-plan.js';
import { hpaMetrics } from '../../controller/reconcile/standard/hpa-metrics.js';
import { AUTOSCALER_CLASSES, scalingFor } from '../../controller/reconcile/standard/hpa.js';
import { withPrometheusScrape } from '../../controller/reconcile/prometheus-scrape.js';
import { desiredScaledObject } from '../../controller/reconcile/standard/scaled-object.js';
import { isForceStopped } from '../../controller/reconcile/stop.js';
import { quantityValue } from '../../controller/webhooks/isvc/autoscaling-validation.js';

const CONFIG: AutoscalerConfig = { scaleUpStabilizationWindowSeconds: 0, scaleDownStabilizationWindowSeconds: 300 };
const META = { name: 'sk-predictor', namespace: 'ns' };
const cpu = (averageUtilization: number): V2MetricSpec => ({ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization } } });
const resource = (name: 'cpu' | 'memory', target: Record<string, unknown>): MetricsSpec => ({ type: 'Resource', resource: { name, target } });

describe('HPA metrics (KServe TestGetHPAMetrics)', () => {
  it.each<[string, ComponentExtensionSpec, V2MetricSpec[]]>([
    ['default cpu metric with scaleMetric', { scaleMetric: 'cpu', scaleTarget: 70 }, [cpu(70)]],
    ['default cpu metric without scaleTarget', { scaleMetric: 'cpu' }, [cpu(80)]],
    [
      'memory metric with scaleTarget',
      { scaleMetric: 'memory', scaleTarget: 60 },
      [{ type: 'Resource', resource: { name: 'memory', target: { type: 'Utilization', averageUtilization: 60 } } }],
    ],
    ['memory metric without scaleTarget', { scaleMetric: 'memory' }, []],
    ['autoscaling with CPU utilization metric', { autoScaling: { metrics: [resource('cpu', { type: 'Utilization', averageUtilization: 50 })] } }, [cpu(50)]],
    ['autoscaling with CPU metric without utilization', { autoScaling: { metrics: [resource('cpu', {})] } }, [cpu(80)]],
    [
      'autoscaling with memory utilization metric',
      { autoScaling: { metrics: [resource('memory', { type: 'Utilization', averageUtilization: 70 })] } },
      [{ type: 'Resource', resource: { name: 'memory', target: { type: 'Utilization', averageUtilization: 70 } } }],
    ],
    [
      'autoscaling with memory average value metric',
      { autoScaling: { metrics: [resource('memory', { type: 'AverageValue', averageValue: '1Gi' })] } },
      [{ type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '1Gi' } } }],
    ],
    [
      'multiple metrics in autoscaling',
      { autoScaling: { metrics: [resource('cpu', { type: 'Utilization', averageUtilization: 60 }), resource('memory', { type: 'AverageValue', averageValue: '2Gi' })] } },
      [cpu(60), { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '2Gi' } } }],
    ],
    ['nil componentExt should return default CPU metric', {}, [cpu(80)]],
    // Beyond KServe, which reads neither field.
    [
      'scaleMetricType AverageValue: cpu in millicores',
      { scaleTarget: 500, scaleMetricType: 'AverageValue' },
      [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'AverageValue', averageValue: '500m' } } }],
    ],
    [
      'scaleMetricType AverageValue: memory in MiB',
      { scaleMetric: 'memory', scaleTarget: 512, scaleMetricType: 'AverageValue' },
      [{ type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '512Mi' } } }],
    ],
    [
      'an AverageValue cpu target is kept',
      { autoScaling: { metrics: [resource('cpu', { type: 'AverageValue', averageValue: '250m' })] } },
      [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'AverageValue', averageValue: '250m' } } }],
    ],
    [
      'External and PodMetric are KEDA triggers, not HPA metrics',
      {
        autoScaling: {
          metrics: [{ type: 'External', external: { metric: { query: 'q' }, target: { value: 1 } } }, resource('cpu', { type: 'Utilization', averageUtilization: 40 })],
        },
      },
      [cpu(40)],
    ],
  ])('%s', (_name, spec, want) => {
    expect(hpaMetrics(spec)).toEqual(want);
  });
});

describe('the HPA (KServe TestCreateHPA)', () => {
  it('defaults: 1..1 on cpu 80%, behavior from the config', () => {
    const d = scalingFor({}, undefined, CONFIG, META);
    expect(d.hpa?.spec).toEqual({
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'sk-predictor' },
      minReplicas: 1,
      maxReplicas: 1,
      metrics: [cpu(80)],
      behavior: { scaleUp: { stabilizationWindowSeconds: 0 }, scaleDown: { stabilizationWindowSeconds: 300 } },
    });
    expect(d.replicas).toBeUndefined();
  });

  it('predictor hpa with ScaleMetric: min 5, max 10, cpu 50%', () => {
    expect(scalingFor({ minReplicas: 5, maxReplicas: 10, scaleTarget: 50, scaleMetric: 'cpu' }, 'hpa', CONFIG, META).hpa?.spec).toMatchObject({
      minReplicas: 5,
      maxReplicas: 10,
      metrics: [cpu(50)],
    });
  });

  it('invalid memory scale target: min 0 and max -10 become 1..1 with no metric', () => {
    expect(scalingFor({ minReplicas: 0, maxReplicas: -10, scaleMetric: 'memory' }, 'hpa', CONFIG, META).hpa?.spec).toMatchObject({ minReplicas: 1, maxReplicas: 1, metrics: [] });
  });

  it("autoScaling.behavior is the HPA's, each direction's window defaulted from the config", () => {
    const behavior = { scaleDown: { stabilizationWindowSeconds: 30, policies: [{ type: 'Pods', value: 1, periodSeconds: 60 }] }, scaleUp: { selectPolicy: 'Max' } };
    expect(scalingFor({ maxReplicas: 4, autoScaling: { behavior } }, 'hpa', CONFIG, META).hpa?.spec?.behavior).toEqual({
      scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: 'Max' },
      scaleDown: { stabilizationWindowSeconds: 30, policies: [{ type: 'Pods', value: 1, periodSeconds: 60 }] },
    });
  });

  it('one decision per autoscaler class', () => {
    expect(AUTOSCALER_CLASSES).toEqual(['hpa', 'keda', 'external', 'none']);
    const s = { minReplicas: 0, maxReplicas: 3 };
    expect(scalingFor(s, 'keda', CONFIG, META)).toMatchObject({ replicas: undefined, scaledObject: { kind: 'ScaledObject' } });
    expect(scalingFor(s, 'keda', CONFIG, META).hpa).toBeUndefined();
    expect(scalingFor(s, 'external', CONFIG, META)).toEqual({ replicas: undefined });
    expect(scalingFor(s, 'none', CONFIG, META)).toEqual({ replicas: 0 });
  });
});

describe('the KEDA ScaledObject (KServe keda_reconciler_test.go)', () => {
  const so = (s: ComponentExtensionSpec) => desiredScaledObject(s, CONFIG, META);

  it('sets the basic fields: target, min 0 for scale to zero, max at least min', () => {
    const o = so({ minReplicas: 0, maxReplicas: 5, autoScaling: { metrics: [resource('cpu', { type: 'Utilization', averageUtilization: 50 })] } });
    expect(o).toMatchObject({
      apiVersion: 'keda.sh/v1alpha1',
      kind: 'ScaledObject',
      metadata: META,
      spec: { scaleTargetRef: { name: 'sk-predictor' }, minReplicaCount: 0, maxReplicaCount: 5 },
    });
    expect(so({}).spec).toMatchObject({ minReplicaCount: 1, maxReplicaCount: 1 });
    expect(so({ minReplicas: 3, maxReplicas: 2 }).spec).toMatchObject({ minReplicaCount: 3, maxReplicaCount: 3 });
  });

  it.each<[string, MetricsSpec, Record<string, unknown>]>([
    ['Resource Utilization', resource('cpu', { type: 'Utilization', averageUtilization: 60 }), { type: 'cpu', metadata: { value: '60' }, metricType: 'Utilization' }],
    ['Resource Utilization, default cpu', resource('cpu', { type: 'Utilization' }), { type: 'cpu', metadata: { value: '80' }, metricType: 'Utilization' }],
    [
      'Resource AverageValue preserves the text',
      resource('memory', { type: 'AverageValue', averageValue: '1.5Gi' }),
      { type: 'memory', metadata: { value: '1.5Gi' }, metricType: 'AverageValue' },
    ],
    ['Resource Value', resource('memory', { type: 'Value', value: '512Mi' }), { type: 'memory', metadata: { value: '512Mi' }, metricType: 'Value' }],
    [
      'External with namespace and auth',
      {
        type: 'External',
        external: {
          metric: { backend: 'prometheus', serverAddress: 'http://prom:9090', query: 'sum(rate(x[1m]))', namespace: 'ns' },
          authenticationRef: { authenticationRef: { name: 'prom-auth' }, authModes: 'bearer' },
          target: { type: 'Value', value: '100.50' },
        },
      },
      {
        type: 'prometheus',
        metadata: { serverAddress: 'http://prom:9090', query: 'sum(rate(x[1m]))', threshold: '100.50', namespace: 'ns', authModes: 'bearer' },
        authenticationRef: { name: 'prom-auth' },
      },
    ],
    [
      'External without namespace or auth',
      { type: 'External', external: { metric: { backend: 'graphite', serverAddress: 'http://g', query: 'q', namespace: 'ns' }, target: { value: 10 } } },
      { type: 'graphite', metadata: { serverAddress: 'http://g', query: 'q', threshold: '10' } },
    ],
    [
      'PodMetric through the OpenTelemetry scaler, narrowed to the Deployment',
      {
        type: 'PodMetric',
        podmetric: { metric: { backend: 'opentelemetry', query: 'kserve_model_queue_depth', operationOverTime: 'avg' }, target: { type: 'Value', value: '4' } },
      },
      {
        type: 'external',
        metadata: {
          metricQuery: 'sum(kserve_model_queue_depth{namespace="ns", deployment="sk-predictor"})',
          targetValue: '4',
          scalerAddress: 'keda-otel-scaler.keda.svc:4318',
          operationOverTime: 'avg',
        },
      },
    ],
  ])('trigger: %s', (_name, metric, want) => {
    expect(so({ autoScaling: { metrics: [metric] } }).spec.triggers).toEqual([want]);
  });

  it('behavior windows: the component, else the config (AdvancedConfigFromComponentExt / FromConfigMap)', () => {
    expect(so({ autoScaling: { behavior: { scaleDown: { stabilizationWindowSeconds: 60 } } } }).spec.advanced).toEqual({
      horizontalPodAutoscalerConfig: { behavior: { scaleDown: { stabilizationWindowSeconds: 60 }, scaleUp: { stabilizationWindowSeconds: 0 } } },
    });
  });
});

describe('small helpers', () => {
  it.each<[string | undefined, boolean]>([
    ['true', true],
    ['TRUE', true],
    ['false', false],
    ['yes', false],
    [undefined, false],
  ])('stop annotation %s → stopped %s (KServe GetForceStopRuntime)', (value, want) => {
    expect(isForceStopped({ metadata: value === undefined ? {} : { annotations: { 'serving.kserve.io/stop': value } } })).toBe(want);
  });

  it('Prometheus scrape annotations point at the serving port, kept where the user set them', () => {
    const plan = { podAnnotations: { 'prometheus.io/path': '/custom' }, ports: [{ containerPort: 8080 }] } as unknown as ComponentPlan;
    expect(withPrometheusScrape({ 'serving.kserve.io/enable-prometheus-scraping': 'true' }, plan)).toEqual({
      'prometheus.io/scrape': 'true',
      'prometheus.io/port': '8080',
      'prometheus.io/path': '/custom',
    });
    expect(withPrometheusScrape({}, plan)).toEqual({ 'prometheus.io/path': '/custom' });
  });

  it.each<[string | number, number | undefined]>([
    ['1Mi', 1024 * 1024],
    ['1Gi', 1024 ** 3],
    ['500k', 5e5],
    ['100m', 0.1],
    [2048, 2048],
    ['1e3', 1000],
    ['lots', undefined],
  ])('quantity %s = %s', (q, want) => {
    expect(quantityValue(q)).toBe(want);
  });
});

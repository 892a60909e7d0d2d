/**
 * A component's scaling fields against its autoscaler (KServe's
 * `validateAutoScalingCompExtension` and the HPA, KEDA and KPA rules under it), KServe's
 * messages prefixed with the field they are about.
 *
 * Differences from KServe, on purpose: Standard mode without the annotation is checked as
 * the hpa class it gets (KServe checks only an explicit class); the HPA's cpu target rule is
 * 1-100 for cpu utilization only (KServe's operator precedence also caps memory); the keda
 * class needs Standard mode and at least one `autoScaling.metrics` entry (a ScaledObject
 * without triggers never scales); `scaleMetricType` must be Utilization or AverageValue
 * (what a resource metric takes), AverageValue with a scaleTarget; and fields the Knative
 * reconciler does not read (`autoScaling`, `scaleMetricType`) are refused there, as KServe
 * already refuses `deploymentStrategy`.
 */
import type { ComponentExtensionSpec, MetricTarget, MetricsSpec, Quantity } from '../../api/inference-service.js';
import { ANN_AUTOSCALER_CLASS, ANN_KNATIVE_AUTOSCALING_CLASS, type DeploymentMode } from '../../constants.js';
import { DEFAULT_AUTOSCALER_CLASS } from '../../reconcile/standard/hpa.js';

/** What the per-component checks need: where the component sits and how it is deployed. */
export interface ComponentContext {
  readonly field: string;
  readonly mode: DeploymentMode;
  readonly annotations: Record<string, string>;
  readonly problems: string[];
}

const HPA_METRICS: readonly string[] = ['cpu', 'memory'];
const KPA_METRICS: readonly string[] = ['concurrency', 'rps'];
const KNATIVE_HPA_CLASS = 'hpa.autoscaling.knative.dev';
const MIB = 1024 * 1024;

/** Standard mode's checks per autoscaler class; `external` and `none` read no scaling field. */
const STANDARD_RULES: Readonly<Record<string, (c: ComponentExtensionSpec, ctx: ComponentContext) => void>> = {
  hpa: (c, ctx) => validateHpa(c, ctx, 'Standard mode with the hpa autoscaler'),
  keda: validateKeda,
};

export function validateAutoscaling(c: ComponentExtensionSpec, ctx: ComponentContext): void {
  const { field, mode, annotations, problems } = ctx;
  if (mode === 'Standard') {
    STANDARD_RULES[annotations[ANN_AUTOSCALER_CLASS] ?? DEFAULT_AUTOSCALER_CLASS]?.(c, ctx);
    return;
  }
  if (c.deploymentStrategy !== undefined) problems.push(`${field}.deploymentStrategy: customizing deploymentStrategy is only supported for raw deployment mode`);
  if (c.autoScaling !== undefined) problems.push(`${field}.autoScaling is only supported in Standard mode (the hpa and keda autoscaler classes)`);
  if (c.scaleMetricType !== undefined) problems.push(`${field}.scaleMetricType is only supported in Standard mode with the hpa autoscaler`);
  if (annotations[ANN_AUTOSCALER_CLASS] === 'keda') {
    problems.push(`annotation ${ANN_AUTOSCALER_CLASS}: keda needs Standard mode (serving.kserve.io/deploymentMode: Standard)`);
    return;
  }
  if (annotations[ANN_AUTOSCALER_CLASS] === 'hpa' || annotations[ANN_KNATIVE_AUTOSCALING_CLASS] === KNATIVE_HPA_CLASS) {
    validateHpaTarget(c, ctx, `${mode} mode with the HPA autoscaler class`);
    return;
  }
  const metric = c.scaleMetric ?? 'concurrency';
  if (!KPA_METRICS.includes(metric)) {
    problems.push(`${field}.scaleMetric '${metric}' is not supported in ${mode} mode (supported: ${KPA_METRICS.join(', ')}; cpu and memory need Standard mode)`);
  } else if (metric === 'rps' && c.scaleTarget !== undefined && c.scaleTarget < 1) {
    problems.push(`${field}.scaleTarget for rps must be at least 1, got ${c.scaleTarget}`);
  }
}

/** KServe's validateScalingHPACompExtension, with scaleMetricType. */
function validateHpa(c: ComponentExtensionSpec, ctx: ComponentContext, where: string): void {
  const { field, problems } = ctx;
  validateHpaTarget(c, ctx, where);
  const type = c.scaleMetricType;
  if (type === 'Value') problems.push(`${field}.scaleMetricType: a resource metric target is Utilization or AverageValue, not Value`);
  if (type === 'AverageValue' && c.scaleTarget === undefined) problems.push(`${field}.scaleTarget: scaleMetricType AverageValue needs a scaleTarget`);
  (c.autoScaling?.metrics ?? []).forEach((m, i) => {
    const at = `${field}.autoScaling.metrics[${i}]`;
    if (m.type !== 'Resource') {
      problems.push(
        `${at}: invalid HPA metric source type with value [${typeof m.type === 'string' ? m.type : ''}],valid metric source types are Resource (External and PodMetric need the keda autoscaler class)`,
      );
    } else if (!m.resource) {
      problems.push(`${at}: metricSpec.Resource is not set for resource metric source type`);
    } else {
      pushIf(problems, at, scaleTargetProblem(m.resource.target));
    }
  });
}

function validateHpaTarget(c: ComponentExtensionSpec, ctx: ComponentContext, where: string): void {
  const { field, problems } = ctx;
  const metric = c.scaleMetric ?? 'cpu';
  if (!HPA_METRICS.includes(metric)) {
    problems.push(`${field}.scaleMetric '${metric}' is not supported in ${where} (supported: ${HPA_METRICS.join(', ')}; concurrency and rps need Knative mode)`);
    return;
  }
  const target = c.scaleTarget;
  if (target === undefined) return;
  if (metric === 'cpu' && c.scaleMetricType !== 'AverageValue' && (!Number.isInteger(target) || target < 1 || target > 100)) {
    problems.push(`${field}.scaleTarget: the cpu target utilization percentage must be an integer from 1 to 100, got ${target}`);
  } else if (metric === 'memory' && target < 1) {
    problems.push(`${field}.scaleTarget: the memory target must be at least 1 (MiB), got ${target}`);
  }
}

/** KServe's validateScalingKedaCompExtension. */
function validateKeda(c: ComponentExtensionSpec, ctx: ComponentContext): void {
  const { field, problems } = ctx;
  if (c.scaleMetric !== undefined) problems.push(`${field}.scaleMetric: ScaleMetric is not supported for KEDA`);
  const metrics = c.autoScaling?.metrics ?? [];
  if (metrics.length === 0) problems.push(`${field}.autoScaling.metrics: the keda autoscaler class needs at least one metric (each becomes a KEDA trigger)`);
  metrics.forEach((m, i) => pushIf(problems, `${field}.autoScaling.metrics[${i}]`, kedaMetricProblem(m)));
}

/** One problem per metric source type, the first found (KServe returns the first error). */
const KEDA_METRIC_RULES: { readonly [K in MetricsSpec['type']]: (m: MetricsSpec) => string | undefined } = {
  Resource: (m) => {
    const r = m.resource;
    if (!r) return 'metricSpec.Resource is not set for resource metric source type';
    const type = r.target.type;
    if (r.name === 'cpu' && type !== 'Utilization') return 'the cpu target value type should be Utilization';
    if (r.name === 'memory') {
      if (type !== 'AverageValue' && type !== 'Utilization') return 'the memory target value type should be AverageValue or Utilization';
      const bytes = type === 'AverageValue' ? quantityValue(r.target.averageValue) : undefined;
      if (bytes !== undefined && bytes < MIB) return 'the memory target value should be greater than 1 MiB';
    }
    return scaleTargetProblem(r.target);
  },
  External: (m) => {
    const e = m.external;
    if (!e) return 'metricSpec.External is not set for external metric source type';
    if (!e.metric.query) return 'the query should not be empty';
    if (e.target.value === undefined) return 'the target threshold value should not be empty';
    return scaleTargetProblem(e.target);
  },
  PodMetric: (m) => {
    const p = m.podmetric;
    if (!p) return 'metricSpec.PodMetric is not set for pod metric source type';
    if (!p.metric.query) return 'the query should not be empty';
    if (p.target.value === undefined) return 'the target threshold value should not be empty';
    return scaleTargetProblem(p.target);
  },
};

function kedaMetricProblem(m: MetricsSpec): string | undefined {
  const rule = KEDA_METRIC_RULES[m.type] as ((m: MetricsSpec) => string | undefined) | undefined;
  return rule ? rule(m) : `unknown KEDA metric type with value [${String(m.type)}].Valid types are Resource,External,PodMetric`;
}

/** KServe's validateScaleTarget: the field the target's type names is set (utilization 1-100). */
function scaleTargetProblem(t: MetricTarget): string | undefined {
  if (t.type === 'Utilization') {
    if (t.averageUtilization === undefined) return 'the AverageUtilization type should be set';
    if (t.averageUtilization < 1 || t.averageUtilization > 100) return 'the target utilization percentage should be a [1-100] integer';
  }
  if (t.type === 'AverageValue' && t.averageValue === undefined) return 'the AverageValue type should be set';
  if (t.type === 'Value' && t.value === undefined) return 'the Value type should be set';
  return undefined;
}

const SUFFIXES: Readonly<Record<string, number>> = {
  '': 1,
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  Ki: 1024,
  Mi: MIB,
  Gi: 1024 ** 3,
  Ti: 1024 ** 4,
  Pi: 1024 ** 5,
};

/** A Kubernetes quantity's value; undefined when it is not one (the API server says so when the HPA is applied). */
export function quantityValue(q: Quantity | undefined): number | undefined {
  if (q === undefined) return undefined;
  if (typeof q === 'number') return q;
  const m = /^([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)([a-zA-Z]*)$/.exec(q.trim());
  const scale = m ? SUFFIXES[m[2]!] : undefined;
  return m && scale !== undefined ? Number(m[1]) * scale : undefined;
}

function pushIf(problems: string[], at: string, problem: string | undefined): void {
  if (problem) problems.push(`${at}: ${problem}`);
}

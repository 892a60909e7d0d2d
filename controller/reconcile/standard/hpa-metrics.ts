/**
 * The HPA's `metrics` (KServe's `getHPAMetrics`): from `autoScaling.metrics` when the
 * component has it, where only Resource metrics belong to an HPA (External and PodMetric
 * are KEDA triggers, and the validator refuses them with the hpa class); otherwise from
 * `scaleMetric`/`scaleTarget`, cpu at 80% by default, memory only with a target (KServe
 * sets no default there, so the HPA falls back to the API server's own default).
 *
 * Beyond KServe, which reads neither: `scaleMetricType: AverageValue` makes the
 * scaleTarget an average value (cpu in millicores, memory in MiB, the unit KServe's
 * validator already speaks of), and a cpu metric's `AverageValue` target in autoScaling is
 * kept instead of being turned into 80% utilization.
 */
import type { V2MetricSpec, V2MetricTarget } from '@kubernetes/client-node';
import type { AutoScalingSpec, MetricTarget, MetricTargetType, MetricsSpec, ScaleMetric } from '../../api/inference-service.js';
import { DEFAULT_CPU_UTILIZATION } from '../../constants.js';

/** The component fields the metrics come from. */
export interface MetricFields {
  readonly scaleMetric?: ScaleMetric;
  readonly scaleTarget?: number;
  readonly scaleMetricType?: MetricTargetType;
  readonly autoScaling?: AutoScalingSpec;
}

/** The unit a bare scaleTarget carries as an average value. */
const AVERAGE_VALUE_UNIT: Readonly<Record<'cpu' | 'memory', string>> = { cpu: 'm', memory: 'Mi' };

export function hpaMetrics(s: MetricFields): V2MetricSpec[] {
  if (s.autoScaling) return (s.autoScaling.metrics ?? []).flatMap((m) => resourceMetric(m) ?? []);
  const name = s.scaleMetric === 'memory' ? 'memory' : 'cpu';
  if (name === 'memory' && s.scaleTarget === undefined) return [];
  const target = s.scaleTarget ?? DEFAULT_CPU_UTILIZATION;
  const metricTarget: V2MetricTarget =
    s.scaleMetricType === 'AverageValue' ? { type: 'AverageValue', averageValue: `${target}${AVERAGE_VALUE_UNIT[name]}` } : { type: 'Utilization', averageUtilization: target };
  return [{ type: 'Resource', resource: { name, target: metricTarget } }];
}

function resourceMetric(m: MetricsSpec): V2MetricSpec | undefined {
  const r = m.resource;
  if (m.type !== 'Resource' || !r) return undefined;
  const target =
    r.name === 'cpu' && r.target.type !== 'AverageValue'
      ? { ...r.target, type: 'Utilization' as const, averageUtilization: r.target.averageUtilization ?? DEFAULT_CPU_UTILIZATION }
      : r.target;
  return { type: 'Resource', resource: { name: r.name, target: hpaTarget(target) } };
}

/** A target as the HPA takes it: only the field its type names, quantities as strings. */
function hpaTarget(t: MetricTarget): V2MetricTarget {
  const type = t.type ?? 'Utilization';
  if (type === 'Utilization') return { type, ...(t.averageUtilization !== undefined ? { averageUtilization: t.averageUtilization } : {}) };
  if (type === 'AverageValue') return { type, ...(t.averageValue !== undefined ? { averageValue: String(t.averageValue) } : {}) };
  return { type, ...(t.value !== undefined ? { value: String(t.value) } : {}) };
}

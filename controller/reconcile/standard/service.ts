/** Standard mode Service: port 80 → the serving container's first port, other ports 1:1 (KServe's service reconciler). */
import type { V1Service, V1ServicePort } from '@kubernetes/client-node';
import type { InferenceService } from '../../api/inference-service.js';
import { LABEL_APP, SERVICE_PORT } from '../../constants.js';
import type { ComponentPlan } from '../component-plan.js';
import { ownedMetadata } from '../owner.js';
import { appLabel } from './deployment.js';

export function desiredService(isvc: InferenceService, plan: ComponentPlan, clusterIPNone: boolean): V1Service {
  const [http, ...extra] = plan.ports;
  const ports: V1ServicePort[] = [
    { name: plan.name, port: SERVICE_PORT, targetPort: http!.containerPort, protocol: 'TCP' },
    ...extra.map((p) => ({
      name: p.name ?? `port-${p.containerPort}`,
      port: p.containerPort,
      targetPort: p.containerPort as never,
      protocol: p.protocol ?? 'TCP',
    })),
  ];
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: ownedMetadata(isvc, plan),
    spec: {
      selector: { [LABEL_APP]: appLabel(plan) },
      ports,
      ...(clusterIPNone ? { clusterIP: 'None' } : {}),
    },
  };
}

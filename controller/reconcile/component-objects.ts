/**
 * Deleting what a component or an InferenceService's way in is made of, by name: for a
 * component taken out of the spec, and for KServe's force stop. Kinds the cluster does not
 * serve (Knative, KEDA, the Gateway API) have nothing to delete, and absent objects are
 * nothing to do, so each call is safe to repeat.
 */
import type { AppsV1Api, CoreV1Api, CustomObjectsApi, KubernetesObjectApi } from '@kubernetes/client-node';
import { type DeploymentMode, LABEL_COMPONENT, LABEL_ISVC, componentName } from '../constants.js';
import { deleteCustomIfExists, deleteIfExists } from '../kube/apply.js';
import type { ComponentType } from './component-plan.js';
import { HTTP_ROUTES } from './ingress/http-route.js';
import { KNATIVE_SERVICES } from './knative/knative-service.js';
import { SCALED_OBJECTS } from './standard/scaled-object.js';

export interface DeleteClients {
  readonly objects: KubernetesObjectApi;
  readonly custom: CustomObjectsApi;
}

/** Standard mode: autoscaler first, so nothing scales a Deployment that is going. */
const STANDARD_KINDS = [
  { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler' },
  { apiVersion: 'apps/v1', kind: 'Deployment' },
  { apiVersion: 'v1', kind: 'Service' },
] as const;

export async function deleteComponentObjects(clients: DeleteClients, mode: DeploymentMode, name: string, namespace: string): Promise<void> {
  if (mode === 'Knative') {
    await deleteCustomIfExists(clients.custom, KNATIVE_SERVICES, name, namespace);
    return;
  }
  await deleteCustomIfExists(clients.custom, SCALED_OBJECTS, name, namespace);
  for (const k of STANDARD_KINDS) await deleteIfExists(clients.objects, { ...k, metadata: { name, namespace } });
}

/** Standard mode's way in: the Ingress `{isvc}`, or the HTTPRoutes `{isvc}` and `{isvc}-{component}`. */
export async function deleteIngressObjects(clients: DeleteClients, isvc: string, namespace: string, components: readonly ComponentType[]): Promise<void> {
  await deleteIfExists(clients.objects, { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: isvc, namespace } });
  for (const name of [isvc, ...components.map((c) => componentName(isvc, c))]) await deleteCustomIfExists(clients.custom, HTTP_ROUTES, name, namespace);
}

export interface ListClients extends DeleteClients {
  readonly apps: AppsV1Api;
  readonly core: CoreV1Api;
}

/**
 * Standard mode: the predictor Deployments and Services of `isvc` (its stable predictor and
 * canaries, by label) not named in `keep` are deleted with their autoscalers, as KServe's
 * orphan cleanup does: a removed canary, and the old stable predictor once a canary is
 * promoted (predictor.name set to the canary's). Returns the names deleted.
 */
export async function deletePredictorsExcept(clients: ListClients, isvc: string, namespace: string, keep: ReadonlySet<string>): Promise<string[]> {
  const labelSelector = `${LABEL_ISVC}=${isvc},${LABEL_COMPONENT}=predictor`;
  const [deployments, services] = await Promise.all([
    clients.apps.listNamespacedDeployment({ namespace, labelSelector }),
    clients.core.listNamespacedService({ namespace, labelSelector }),
  ]);
  const names = new Set([...deployments.items, ...services.items].map((o) => o.metadata!.name!));
  const gone = [...names].filter((n) => !keep.has(n));
  for (const name of gone) await deleteComponentObjects(clients, 'Standard', name, namespace);
  return gone;
}

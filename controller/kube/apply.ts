/**
 * Server-side apply of desired objects: idempotent (same input → no change, no new
 * resourceVersion) and conflict-free with other writers of fields we do not declare,
 * e.g. the HPA's writes to a Deployment's replicas.
 */
import { type CustomObjectsApi, type KubernetesObject, type KubernetesObjectApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { FIELD_MANAGER } from '../constants.js';
import { isNotFound } from './api-errors.js';

export async function applyObject<T extends KubernetesObject>(objects: KubernetesObjectApi, desired: T): Promise<T> {
  // force: this controller owns the fields it declares, as controller-runtime's
  // client.Apply with ForceOwnership does.
  return objects.patch(desired, undefined, undefined, FIELD_MANAGER, true, PatchStrategy.ServerSideApply);
}

export interface CustomResource {
  readonly group: string;
  readonly version: string;
  readonly plural: string;
}

/**
 * Server-side apply of a custom resource whose kind shares a name with a built-in one
 * (Knative's `Service`): the generic object API would serialize it as the built-in type
 * and drop its fields, so this goes through the custom-objects API untouched.
 */
export async function applyCustomObject<T extends KubernetesObject>(custom: CustomObjectsApi, resource: CustomResource, desired: T): Promise<T> {
  return (await custom.patchNamespacedCustomObject(
    {
      ...resource,
      namespace: desired.metadata!.namespace!,
      name: desired.metadata!.name!,
      body: desired,
      fieldManager: FIELD_MANAGER,
      force: true,
    },
    setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply),
  )) as T;
}

/** Deletes an object if it exists; returns whether one was deleted. */
export async function deleteIfExists(objects: KubernetesObjectApi, ref: KubernetesObject): Promise<boolean> {
  try {
    await objects.delete(ref);
    return true;
  } catch (err) {
    if (isNotFound(err)) return false;
    throw err;
  }
}

/** Deletes a custom object if it exists; a kind the cluster does not serve has none to delete. */
export async function deleteCustomIfExists(custom: CustomObjectsApi, resource: CustomResource, name: string, namespace: string): Promise<void> {
  try {
    await custom.deleteNamespacedCustomObject({ ...resource, namespace, name });
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
}

/**
 * Accelerators are Kubernetes extended resources. A predictor asks for one in its model
 * container's resources (`limits: { nvidia.com/gpu: 1 }`, as KServe's GPU examples do); a
 * ServingRuntime built for one says so the same way, by requesting it in its serving
 * container. Runtime selection matches the two, so a GPU predictor gets the runtime whose
 * image carries the CUDA provider (KServe switched its framework images to a `-gpu` tag for
 * the same reason) and a CPU predictor never lands on a runtime that would wait for a GPU.
 */
import type { V1Container, V1ResourceRequirements } from '@kubernetes/client-node';
import type { ServingRuntimeSpec } from './api/serving-runtime.js';
import { KSERVE_CONTAINER } from './constants.js';

/** The extended resources that name an accelerator: KServe's list of GPU resource types. */
export const ACCELERATOR_RESOURCES: readonly string[] = ['nvidia.com/gpu', 'amd.com/gpu', 'intel.com/gpu', 'habana.ai/gaudi'];

/** A quantity above zero ("1", 2, "500m"); "0" asks for nothing. */
function positive(quantity: unknown): boolean {
  const n = Number.parseFloat(String(quantity));
  return Number.isFinite(n) && n > 0;
}

/** The accelerators a container's resources ask for (limits or requests), sorted. */
export function acceleratorsOf(resources: V1ResourceRequirements | undefined): string[] {
  const out = new Set<string>();
  for (const list of [resources?.limits, resources?.requests]) {
    for (const [name, quantity] of Object.entries(list ?? {})) {
      if (ACCELERATOR_RESOURCES.includes(name) && positive(quantity)) out.add(name);
    }
  }
  return [...out].sort();
}

/** The accelerators a runtime's serving container (kserve-container, else the first) requests. */
export function runtimeAccelerators(spec: ServingRuntimeSpec): string[] {
  const main: V1Container | undefined = spec.containers.find((c) => c.name === KSERVE_CONTAINER) ?? spec.containers[0];
  return acceleratorsOf(main?.resources);
}

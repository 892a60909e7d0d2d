/** A component's pods as status reads them: those not being deleted, the newest first. */
import type { V1Pod } from '@kubernetes/client-node';

export function newestLivePods(pods: readonly V1Pod[]): V1Pod[] {
  const t = (p: V1Pod): number => new Date(p.metadata?.creationTimestamp ?? 0).getTime();
  return [...pods].filter((p) => !p.metadata?.deletionTimestamp).sort((a, b) => t(b) - t(a));
}

/**
 * Why a component is not ready, from its pods. The Deployment only says
 * "MinimumReplicasUnavailable" (and Knative "waiting for a Revision"); the pods say why, and
 * KServe does not pass it on, so a user had to find the pod and describe it. Looked at: the
 * component's pods that are not Ready and not being deleted, newest first; the first
 * explanation found wins:
 *   - the scheduler's `PodScheduled=False` ("0/1 nodes are available: 1 Insufficient cpu.");
 *   - a pod that failed as a whole (evicted);
 *   - an init container, then a container, waiting for a reason that is not start-up
 *     (image pull errors, CrashLoopBackOff with its last exit, configuration errors), or
 *     terminated with an error.
 * The condition keeps its status (scheduling can succeed later, a pull can be retried): its
 * reason and message become the pod's.
 */
import type { V1ContainerStatus, V1ContainerStateTerminated, V1Pod } from '@kubernetes/client-node';
import type { Condition } from '../../api/inference-service.js';
import { condition } from './conditions.js';
import { newestLivePods } from './live-pods.js';

/** Waiting reasons of a container that is starting normally. */
const STARTING = new Set(['ContainerCreating', 'PodInitializing']);
/** A termination message can be 4 KiB (the kubelet's bound); a condition message stays readable. */
const MAX_DETAIL = 512;

interface PodFailure {
  readonly reason: string;
  readonly message: string;
}

/** `ready` with the reason and message of the first pod failure found, unless it is True. */
export function explainFromPods(ready: Condition, pods: readonly V1Pod[]): Condition {
  if (ready.status === 'True') return ready;
  const failure = firstPodFailure(pods);
  return failure ? condition(ready.type, ready.status, failure.reason, failure.message) : ready;
}

function firstPodFailure(pods: readonly V1Pod[]): PodFailure | undefined {
  for (const pod of newestLivePods(pods)) {
    if (pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')) continue;
    const failure = podFailure(pod);
    if (failure) return failure;
  }
  return undefined;
}

function podFailure(pod: V1Pod): PodFailure | undefined {
  const name = `pod ${pod.metadata?.name ?? ''}`;
  const scheduled = pod.status?.conditions?.find((c) => c.type === 'PodScheduled');
  if (scheduled?.status === 'False') {
    return { reason: scheduled.reason || 'Unschedulable', message: `${name} cannot be scheduled: ${clip(scheduled.message || 'no reason given')}` };
  }
  if (pod.status?.phase === 'Failed') {
    return { reason: pod.status.reason || 'PodFailed', message: `${name} failed: ${clip(pod.status.message || 'no reason given')}` };
  }
  for (const [kind, statuses, failed] of [
    ['init container', pod.status?.initContainerStatuses, 'InitContainerFailed'],
    ['container', pod.status?.containerStatuses, 'ContainerFailed'],
  ] as const) {
    for (const s of statuses ?? []) {
      const failure = containerFailure(s, failed);
      if (failure) return { reason: failure.reason, message: `${name}, ${kind} ${s.name}: ${failure.message}` };
    }
  }
  return undefined;
}

function containerFailure(s: V1ContainerStatus, failed: string): PodFailure | undefined {
  const waiting = s.state?.waiting;
  const crashed = s.state?.terminated && s.state.terminated.exitCode !== 0 ? s.state.terminated : undefined;
  // A container restarted after failing is crash-looping whether the kubelet shows it waiting
  // out its back-off or just exited again: one reason and message for both, so the condition
  // does not flip with every restart. CrashLoopBackOff's own message ("back-off 40s restarting
  // failed container=...") changes with each back-off step and says nothing of the failure:
  // the last exit does.
  if (waiting?.reason === 'CrashLoopBackOff' || (crashed && s.restartCount > 0)) {
    const last = crashed ?? s.lastState?.terminated;
    return { reason: 'CrashLoopBackOff', message: `keeps failing${last ? `; last exit: ${exitText(last)}` : ''}` };
  }
  if (waiting?.reason && !STARTING.has(waiting.reason)) return { reason: waiting.reason, message: clip(waiting.message || waiting.reason) };
  if (crashed) return { reason: failed, message: `exited: ${exitText(crashed)}` };
  return undefined;
}

function exitText(t: V1ContainerStateTerminated): string {
  const detail = t.message?.trim();
  return `${t.reason || 'Error'}, exit code ${t.exitCode}${detail ? `: ${clip(detail)}` : ''}`;
}

function clip(text: string): string {
  return text.length <= MAX_DETAIL ? text : `${text.slice(0, MAX_DETAIL)}…`;
}

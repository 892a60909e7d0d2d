/**
 * A component's condition explained by its pods (#27): the table of pod states a kubelet and
 * a scheduler report, and what the condition then says. End to end (watch → reconcile →
 * status) on the real API server: controller.test.ts; on the real node:
 * test/cluster/node/unschedulable.test.ts.
 */
import type { V1ContainerStatus, V1Pod, V1PodStatus } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { Condition } from '../../controller/api/inference-service.js';
import { condition } from '../../controller/reconcile/status/conditions.js';
import { explainFromPods } from '../../controller/reconcile/status/pod-failure.js';

const NOT_AVAILABLE = condition('PredictorReady', 'Unknown', 'MinimumReplicasUnavailable', 'Deployment does not have minimum availability.');

function pod(name: string, created: string, status: V1PodStatus, deleting = false): V1Pod {
  return {
    metadata: { name, creationTimestamp: new Date(created), ...(deleting ? { deletionTimestamp: new Date(created) } : {}) },
    status,
  };
}

const readyPod = (name: string, created: string): V1Pod => pod(name, created, { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] });

const unschedulable = (name: string, created: string): V1Pod =>
  pod(name, created, {
    phase: 'Pending',
    conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: '0/1 nodes are available: 1 Insufficient cpu.' }],
  });

const withContainer = (name: string, created: string, container: V1ContainerStatus, init = false): V1Pod =>
  pod(name, created, {
    phase: init ? 'Pending' : 'Running',
    conditions: [
      { type: 'PodScheduled', status: 'True' },
      { type: 'Ready', status: 'False', reason: 'ContainersNotReady' },
    ],
    ...(init ? { initContainerStatuses: [container] } : { containerStatuses: [container] }),
  });

const status = (name: string, rest: Partial<V1ContainerStatus>): V1ContainerStatus => ({ name, image: 'x', imageID: '', ready: false, restartCount: 0, ...rest });

const cases: ReadonlyArray<readonly [string, Condition, readonly V1Pod[], Partial<Condition>]> = [
  ['a Ready condition stays as it is', condition('PredictorReady', 'True'), [unschedulable('p-1', '2026-01-01T00:00:00Z')], { status: 'True' }],
  ["no pods: the Deployment's words", NOT_AVAILABLE, [], NOT_AVAILABLE],
  ["Ready pods: the Deployment's words", NOT_AVAILABLE, [readyPod('p-1', '2026-01-01T00:00:00Z')], NOT_AVAILABLE],
  [
    "the scheduler's refusal",
    NOT_AVAILABLE,
    [unschedulable('p-1', '2026-01-01T00:00:00Z')],
    { status: 'Unknown', reason: 'Unschedulable', message: 'pod p-1 cannot be scheduled: 0/1 nodes are available: 1 Insufficient cpu.' },
  ],
  [
    'a rollout: the old pod Ready, the new one unschedulable',
    NOT_AVAILABLE,
    [readyPod('old', '2026-01-01T00:00:00Z'), unschedulable('new', '2026-01-02T00:00:00Z')],
    { reason: 'Unschedulable', message: 'pod new cannot be scheduled: 0/1 nodes are available: 1 Insufficient cpu.' },
  ],
  [
    'a False condition keeps its status',
    condition('PredictorReady', 'False', 'ProgressDeadlineExceeded', 'ReplicaSet "p" has timed out progressing.'),
    [unschedulable('p-1', '2026-01-01T00:00:00Z')],
    { status: 'False', reason: 'Unschedulable', message: 'pod p-1 cannot be scheduled: 0/1 nodes are available: 1 Insufficient cpu.' },
  ],
  [
    'an image that cannot be pulled',
    NOT_AVAILABLE,
    [
      withContainer(
        'p-1',
        '2026-01-01T00:00:00Z',
        status('kserve-container', { state: { waiting: { reason: 'ErrImageNeverPull', message: 'Container image "a:1" is not present with pull policy of Never' } } }),
      ),
    ],
    { reason: 'ErrImageNeverPull', message: 'pod p-1, container kserve-container: Container image "a:1" is not present with pull policy of Never' },
  ],
  [
    'a container still being created says nothing',
    NOT_AVAILABLE,
    [withContainer('p-1', '2026-01-01T00:00:00Z', status('kserve-container', { state: { waiting: { reason: 'ContainerCreating' } } }))],
    NOT_AVAILABLE,
  ],
  [
    'a crash loop: the last exit, not the back-off text',
    NOT_AVAILABLE,
    [
      withContainer(
        'p-1',
        '2026-01-01T00:00:00Z',
        status('kserve-container', {
          restartCount: 4,
          state: { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 1m20s restarting failed container=kserve-container pod=p-1' } },
          lastState: { terminated: { exitCode: 137, reason: 'OOMKilled' } },
        }),
      ),
    ],
    { reason: 'CrashLoopBackOff', message: 'pod p-1, container kserve-container: keeps failing; last exit: OOMKilled, exit code 137' },
  ],
  [
    'a crash loop between two back-offs (exited again): the same words',
    NOT_AVAILABLE,
    [
      withContainer(
        'p-1',
        '2026-01-01T00:00:00Z',
        status('kserve-container', {
          restartCount: 3,
          state: { terminated: { exitCode: 137, reason: 'OOMKilled' } },
          lastState: { terminated: { exitCode: 137, reason: 'OOMKilled' } },
        }),
      ),
    ],
    { reason: 'CrashLoopBackOff', message: 'pod p-1, container kserve-container: keeps failing; last exit: OOMKilled, exit code 137' },
  ],
  [
    'an init container in a crash loop, with its termination message',
    NOT_AVAILABLE,
    [
      withContainer(
        'p-1',
        '2026-01-01T00:00:00Z',
        status('storage-initializer', {
          state: { waiting: { reason: 'CrashLoopBackOff' } },
          lastState: { terminated: { exitCode: 1, reason: 'Error', message: 'no objects found under s3://m/x\n' } },
        }),
        true,
      ),
    ],
    { reason: 'CrashLoopBackOff', message: 'pod p-1, init container storage-initializer: keeps failing; last exit: Error, exit code 1: no objects found under s3://m/x' },
  ],
  [
    'an init container that just failed',
    NOT_AVAILABLE,
    [withContainer('p-1', '2026-01-01T00:00:00Z', status('storage-initializer', { state: { terminated: { exitCode: 2, reason: 'Error' } } }), true)],
    { reason: 'InitContainerFailed', message: 'pod p-1, init container storage-initializer: exited: Error, exit code 2' },
  ],
  [
    'an evicted pod',
    NOT_AVAILABLE,
    [pod('p-1', '2026-01-01T00:00:00Z', { phase: 'Failed', reason: 'Evicted', message: 'The node was low on resource: memory.' })],
    { reason: 'Evicted', message: 'pod p-1 failed: The node was low on resource: memory.' },
  ],
  ['a pod being deleted is not looked at', NOT_AVAILABLE, [pod('gone', '2026-01-01T00:00:00Z', unschedulable('x', '2026-01-01T00:00:00Z').status!, true)], NOT_AVAILABLE],
  [
    'the newest failing pod speaks',
    NOT_AVAILABLE,
    [unschedulable('older', '2026-01-01T00:00:00Z'), unschedulable('newer', '2026-01-03T00:00:00Z'), unschedulable('middle', '2026-01-02T00:00:00Z')],
    { reason: 'Unschedulable', message: 'pod newer cannot be scheduled: 0/1 nodes are available: 1 Insufficient cpu.' },
  ],
];

describe('a component condition explained by its pods', () => {
  it.each(cases)('%s', (_name, ready, pods, expected) => {
    expect(explainFromPods(ready, pods)).toEqual({ ...ready, ...expected });
  });

  it('a termination message of any length is clipped', () => {
    const long = 'x'.repeat(4096);
    const out = explainFromPods(NOT_AVAILABLE, [
      withContainer('p-1', '2026-01-01T00:00:00Z', status('c', { state: { terminated: { exitCode: 1, reason: 'Error', message: long } } })),
    ]);
    expect(out.message).toBe(`pod p-1, container c: exited: Error, exit code 1: ${'x'.repeat(512)}…`);
  });
});

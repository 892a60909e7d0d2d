/**
 * Plays the scheduler's and the kubelet's parts for one Node, since the test control plane has
 * neither (and no container runtime to run pods with):
 *   - registers a Ready Node (16 CPUs, 64 GiB);
 *   - binds every unscheduled pod it sees to that Node (the pods/binding subresource, as the
 *     scheduler does), unless the pod's CPU or memory requests exceed the Node's: then, as the
 *     scheduler, it leaves the pod unbound with `PodScheduled=False Unschedulable` and the
 *     scheduler's message ("0/1 nodes are available: 1 Insufficient cpu. ...");
 *   - reports each bound pod's status as a kubelet would once its containers run: init
 *     containers terminated with exit code 0, containers running and ready, phase Running,
 *     PodScheduled/Initialized/ContainersReady/Ready all True — or, where `initFailure` says
 *     so, an init container terminated with reason Error, its exit code and termination
 *     message, the pod left Pending (Init:Error) and not Ready; or, where `containerFailure`
 *     says so, a container that keeps exiting: waiting in CrashLoopBackOff with its last
 *     termination, the pod Running and not Ready;
 *   - confirms graceful deletions of its pods (deletes them with grace period 0), or they
 *     would stay Terminating forever.
 *
 * Why not kwok (sigs.k8s.io/kwok)? It would be one more Go binary to build and run, and
 * failing one pod's init container with a test-chosen exit code and message would mean
 * writing Stage resources per case; a TypeScript hook that sees the pod is simpler, and
 * everything the controller observes (Deployment/ReplicaSet/Pod status via the real
 * kube-controller-manager) is still produced by the real components.
 */
import { randomBytes } from 'node:crypto';
import {
  ApiException,
  CoreV1Api,
  type KubeConfig,
  type V1Container,
  type V1ContainerStatus,
  type V1NodeCondition,
  type V1Pod,
  type V1PodCondition,
  type V1PodStatus,
  makeInformer,
} from '@kubernetes/client-node';

export interface InitFailure {
  readonly exitCode: number;
  /** The termination message (what the container wrote to /dev/termination-log). */
  readonly message: string;
  /** Which init container fails: default `storage-initializer`, or the first if there is none by that name. */
  readonly container?: string;
  /** The terminated state's reason. Default `Error`. */
  readonly reason?: string;
}

/** A container that exits each time it starts: the kubelet's CrashLoopBackOff report. */
export interface ContainerFailure {
  /** Which container; default the first. */
  readonly container?: string;
  readonly exitCode: number;
  /** The last termination's message. */
  readonly message: string;
}

export interface FakeKubeletOptions {
  /** The Node's name. Default `fake-node`. */
  readonly nodeName?: string;
  /** Only pods in this namespace; default all namespaces. */
  readonly namespace?: string;
  /** The IP reported as podIP (nothing listens there). Default 127.0.0.1. */
  readonly podIP?: string;
  /** Decides, per pod, that an init container fails instead of completing. */
  readonly initFailure?: (pod: V1Pod) => InitFailure | undefined;
  /** Decides, per pod, that a container crash-loops instead of running. */
  readonly containerFailure?: (pod: V1Pod) => ContainerFailure | undefined;
}

export interface FakeKubelet {
  readonly nodeName: string;
  /** Stops watching; pods already reported keep their status. The Node is left in place. */
  stop(): Promise<void>;
}

const RETRY_MS = 300;
const DEFAULT_FAILING = 'storage-initializer';
const RESYNC_MS = 3_000;
const CAPACITY = { cpu: '16', memory: '64Gi', pods: '110', 'ephemeral-storage': '100Gi' };

export async function startFakeKubelet(kubeConfig: KubeConfig, opts: FakeKubeletOptions = {}): Promise<FakeKubelet> {
  const nodeName = opts.nodeName ?? 'fake-node';
  const podIP = opts.podIP ?? '127.0.0.1';
  const core = kubeConfig.makeApiClient(CoreV1Api);
  await registerNode(core, nodeName);

  const ns = opts.namespace;
  const informer = makeInformer<V1Pod>(kubeConfig, ns ? `/api/v1/namespaces/${ns}/pods` : '/api/v1/pods', () =>
    ns ? core.listNamespacedPod({ namespace: ns }) : core.listPodForAllNamespaces(),
  );

  let stopped = false;
  const dirty = new Set<string>();
  let worker: Promise<void> | undefined;

  // An unbound pod already reported unschedulable stays so: its spec cannot change.
  const needsWork = (pod: V1Pod): boolean =>
    pod.metadata?.deletionTimestamp !== undefined
      ? pod.spec?.nodeName === nodeName
      : pod.spec?.nodeName
        ? pod.spec.nodeName === nodeName && !pod.status?.startTime
        : !pod.status?.conditions?.some((c) => c.type === 'PodScheduled' && c.status === 'False');

  const enqueue = (pod: V1Pod): void => {
    if (stopped || !needsWork(pod)) return;
    dirty.add(`${pod.metadata?.namespace}/${pod.metadata?.name}`);
    worker ??= drain().finally(() => (worker = undefined));
  };

  const drain = async (): Promise<void> => {
    while (!stopped && dirty.size > 0) {
      const key = dirty.values().next().value as string;
      dirty.delete(key);
      const [namespace = '', name = ''] = key.split('/');
      try {
        await sync(namespace, name);
      } catch {
        // Conflicts, or the apiserver restarting: try again shortly.
        setTimeout(() => {
          if (stopped) return;
          dirty.add(key);
          worker ??= drain().finally(() => (worker = undefined));
        }, RETRY_MS);
      }
    }
  };

  const sync = async (namespace: string, name: string): Promise<void> => {
    let pod: V1Pod;
    try {
      pod = await core.readNamespacedPod({ name, namespace });
    } catch (e) {
      if (isStatus(e, 404)) return;
      throw e;
    }
    if (pod.metadata?.deletionTimestamp) {
      if (pod.spec?.nodeName !== nodeName) return;
      // With a body, the apiserver ignores the query's gracePeriodSeconds: it goes in the body.
      await core
        .deleteNamespacedPod({
          name,
          namespace,
          body: { gracePeriodSeconds: 0, preconditions: { uid: pod.metadata.uid } },
        })
        .catch((e: unknown) => {
          if (!isStatus(e, 404) && !isStatus(e, 409)) throw e;
        });
      return;
    }
    if (!pod.spec?.nodeName) {
      const misfit = insufficient(pod);
      if (misfit.length > 0) {
        await reportUnschedulable(core, pod, misfit);
        return;
      }
      await core.createNamespacedPodBinding({
        name,
        namespace,
        body: { metadata: { name, namespace }, target: { apiVersion: 'v1', kind: 'Node', name: nodeName } },
      });
      pod = await core.readNamespacedPod({ name, namespace });
    }
    if (pod.spec?.nodeName !== nodeName || pod.status?.startTime) return;
    pod.status = runningStatus(pod, podIP, opts.initFailure?.(pod), opts.containerFailure?.(pod));
    await core.replaceNamespacedPodStatus({ name, namespace, body: pod });
  };

  const onEvent = (pod: V1Pod): void => enqueue(pod);
  informer.on('add', onEvent);
  informer.on('update', onEvent);
  informer.on('error', () => {
    // The watch broke (e.g. the apiserver restarted): relist and watch again.
    if (!stopped) setTimeout(() => void informer.start().catch(() => undefined), RETRY_MS);
  });
  await informer.start();
  // A safety net for events lost around watch restarts.
  const resync = setInterval(() => {
    for (const pod of informer.list()) enqueue(pod);
  }, RESYNC_MS);

  return {
    nodeName,
    async stop() {
      stopped = true;
      clearInterval(resync);
      await informer.stop();
      await worker;
    },
  };
}

/**
 * The scheduler's resource fit for one Node: a pod requests the larger of its containers' sum
 * (sidecar init containers included) and its largest init container, per resource.
 */
function insufficient(pod: V1Pod): string[] {
  const spec = pod.spec;
  const requested = (c: V1Container, resource: string): number => quantity(c.resources?.requests?.[resource] ?? c.resources?.limits?.[resource] ?? '0');
  const inits = spec?.initContainers ?? [];
  const running = [...(spec?.containers ?? []), ...inits.filter((c) => c.restartPolicy === 'Always')];
  return (['cpu', 'memory'] as const).filter((resource) => {
    const sum = running.reduce((total, c) => total + requested(c, resource), 0);
    const largestInit = Math.max(0, ...inits.map((c) => requested(c, resource)));
    return Math.max(sum, largestInit) > quantity(CAPACITY[resource]);
  });
}

const SUFFIX: Readonly<Record<string, number>> = { '': 1, m: 1e-3, k: 1e3, M: 1e6, G: 1e9, T: 1e12, Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40 };

function quantity(q: string): number {
  const m = /^([0-9.]+)([a-zA-Z]*)$/.exec(q.trim());
  const scale = m ? SUFFIX[m[2] ?? ''] : undefined;
  if (!m || scale === undefined) throw new Error(`fake kubelet: unsupported quantity ${q}`);
  return Number(m[1]) * scale;
}

/** What kube-scheduler 1.35 writes for a pod that fits no node (its message on the one-node cluster of scripts/kube-node.sh). */
async function reportUnschedulable(core: CoreV1Api, pod: V1Pod, misfit: readonly string[]): Promise<void> {
  const message =
    `0/1 nodes are available: ${misfit.map((r) => `1 Insufficient ${r}`).join(', ')}. ` +
    'no new claims to deallocate, preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.';
  pod.status = {
    ...pod.status,
    phase: 'Pending',
    conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message, lastTransitionTime: new Date() }],
  };
  await core.replaceNamespacedPodStatus({ name: pod.metadata!.name!, namespace: pod.metadata!.namespace!, body: pod });
}

async function registerNode(core: CoreV1Api, name: string): Promise<void> {
  const capacity = CAPACITY;
  const now = new Date();
  const status = {
    capacity,
    allocatable: capacity,
    conditions: [
      nodeCondition('Ready', 'True', 'KubeletReady', now),
      nodeCondition('MemoryPressure', 'False', 'KubeletHasSufficientMemory', now),
      nodeCondition('DiskPressure', 'False', 'KubeletHasNoDiskPressure', now),
      nodeCondition('PIDPressure', 'False', 'KubeletHasSufficientPID', now),
    ],
    addresses: [
      { type: 'InternalIP', address: '127.0.0.1' },
      { type: 'Hostname', address: name },
    ],
    nodeInfo: {
      machineID: name,
      systemUUID: name,
      bootID: name,
      kernelVersion: 'fake',
      osImage: 'fake',
      containerRuntimeVersion: 'fake://0.0.0',
      kubeletVersion: 'fake',
      kubeProxyVersion: 'fake',
      operatingSystem: 'linux',
      architecture: 'amd64',
    },
  };
  const labels = { 'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64' };
  let node;
  try {
    node = await core.createNode({ body: { metadata: { name, labels }, status } });
  } catch (e) {
    if (!isStatus(e, 409)) throw e;
    node = await core.readNode({ name });
  }
  // Status sent on create is not guaranteed to be kept: set it through the subresource.
  node.status = status;
  await core.replaceNodeStatus({ name, body: node });
}

function nodeCondition(type: string, status: string, reason: string, now: Date): V1NodeCondition {
  return { type, status, reason, lastHeartbeatTime: now, lastTransitionTime: now };
}

function runningStatus(pod: V1Pod, podIP: string, failure: InitFailure | undefined, crash: ContainerFailure | undefined): V1PodStatus {
  const now = new Date();
  const spec = pod.spec;
  const inits = spec?.initContainers ?? [];
  const containers = spec?.containers ?? [];
  // Index of the init container that fails, or -1. An unknown `container` name fails the first.
  const failing =
    failure === undefined || inits.length === 0
      ? -1
      : Math.max(
          0,
          inits.findIndex((c) => c.name === (failure.container ?? DEFAULT_FAILING)),
        );
  const failed = failing >= 0;
  const base = (name: string, image: string): V1ContainerStatus => ({
    name,
    image,
    imageID: image.includes('@') ? image : `${image}@sha256:${'0'.repeat(64)}`,
    containerID: `containerd://${randomBytes(32).toString('hex')}`,
    ready: false,
    restartCount: 0,
  });

  const waiting = (s: V1ContainerStatus): V1ContainerStatus => ({
    ...s,
    containerID: undefined,
    imageID: '',
    started: false,
    state: { waiting: { reason: 'PodInitializing' } },
  });

  const initContainerStatuses: V1ContainerStatus[] = inits.map((c, i) => {
    const s = base(c.name, c.image ?? '');
    if (failure !== undefined && i === failing) {
      return {
        ...s,
        started: false,
        state: {
          terminated: {
            exitCode: failure.exitCode,
            reason: failure.reason ?? 'Error',
            message: failure.message,
            startedAt: now,
            finishedAt: now,
          },
        },
      };
    }
    if (failed && i > failing) return waiting(s);
    if (c.restartPolicy === 'Always') return { ...s, ready: true, started: true, state: { running: { startedAt: now } } };
    return {
      ...s,
      ready: true,
      started: false,
      state: { terminated: { exitCode: 0, reason: 'Completed', startedAt: now, finishedAt: now } },
    };
  });
  // The crash-looping container, once init containers are done; unknown names crash the first.
  const crashing =
    failed || crash === undefined
      ? -1
      : Math.max(
          0,
          containers.findIndex((c) => c.name === crash.container),
        );
  const containerStatuses: V1ContainerStatus[] = containers.map((c, i) => {
    const s = base(c.name, c.image ?? '');
    if (failed) return waiting(s);
    if (crash !== undefined && i === crashing) {
      return {
        ...s,
        restartCount: 1,
        started: false,
        state: { waiting: { reason: 'CrashLoopBackOff', message: `back-off 10s restarting failed container=${c.name} pod=${pod.metadata?.name}` } },
        lastState: { terminated: { exitCode: crash.exitCode, reason: 'Error', message: crash.message, startedAt: now, finishedAt: now } },
      };
    }
    return { ...s, ready: true, started: true, state: { running: { startedAt: now } } };
  });

  const cond = (type: string, ok: boolean, reason?: string, message?: string): V1PodCondition => ({
    type,
    status: ok ? 'True' : 'False',
    lastTransitionTime: now,
    ...(reason ? { reason } : {}),
    ...(message ? { message } : {}),
  });
  const notInit = failed ? `containers with incomplete status: [${inits[failing]?.name}]` : undefined;
  const unready = failed ? containers.map((c) => c.name) : crashing >= 0 ? [containers[crashing]!.name] : [];
  const ready = unready.length === 0;
  const notReady = ready ? undefined : `containers with unready status: [${unready.join(' ')}]`;
  return {
    ...pod.status,
    phase: failed ? 'Pending' : 'Running',
    hostIP: '127.0.0.1',
    hostIPs: [{ ip: '127.0.0.1' }],
    podIP,
    podIPs: [{ ip: podIP }],
    startTime: now,
    conditions: [
      cond('PodReadyToStartContainers', true),
      cond('Initialized', !failed, failed ? 'ContainersNotInitialized' : undefined, notInit),
      cond('Ready', ready, ready ? undefined : 'ContainersNotReady', notReady),
      cond('ContainersReady', ready, ready ? undefined : 'ContainersNotReady', notReady),
      cond('PodScheduled', true),
    ],
    initContainerStatuses,
    containerStatuses,
  };
}

function isStatus(e: unknown, code: number): boolean {
  return e instanceof ApiException && e.code === code;
}

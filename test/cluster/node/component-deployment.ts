/**
 * The Deployment shape the node's third-party components share (metrics-server, KEDA's
 * operator, Traefik): one replica of one container, its image from the private engine (never
 * pulled: nothing here reaches a registry), under a ServiceAccount of the same name, run as
 * nobody on a read-only root with no privileges. Each caller gives what is its own: the
 * container's args, ports, probes, resources, env and mounts, and the pod's volumes.
 */
import { imageName } from '../../images/docker.js';

type ImageTarget = Parameters<typeof imageName>[0];

const NOBODY = { readOnlyRootFilesystem: true, runAsNonRoot: true, runAsUser: 65534, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } };

export interface ComponentDeployment {
  readonly name: string;
  readonly namespace: string;
  readonly labels: Record<string, string>;
  readonly image: ImageTarget;
  /** The container's own fields (args, ports, probes, resources, env, volumeMounts). */
  readonly container: Record<string, unknown>;
  readonly volumes?: readonly unknown[];
}

export function componentDeployment(c: ComponentDeployment): object {
  const { name, namespace, labels } = c;
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace, labels },
    spec: {
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          serviceAccountName: name,
          containers: [{ name, image: imageName(c.image), imagePullPolicy: 'Never', ...c.container, securityContext: NOBODY }],
          ...(c.volumes === undefined ? {} : { volumes: c.volumes }),
        },
      },
    },
  };
}

/**
 * Modelcars on the real node (#18): an InferenceService whose storageUri is
 * `oci://kserve-ts-model-iris:<version>` (the model image of scripts/build-images.sh, in the
 * node's containerd, pulled IfNotPresent) is served from the image itself. The pod webhook
 * adds the `modelcar` sidecar and `modelcar-init` with a shared process namespace and no
 * storage-initializer; the server reads /mnt/models through the sidecar's link into its
 * /models; V1 and V2 answers through the predictor's Service equal a local server's.
 */
import { describe, expect, it } from 'vitest';
import { IRIS_DIR } from '../../helpers/server.js';
import { imageName } from '../../images/docker.js';
import { V1_IRIS, V2_IRIS, inferenceService } from './fixtures.js';
import { type Obj, answerOf, request, useKserveSuite, waitRoutable } from './kserve.js';

const NS = `modelcar-${process.pid}`;
const OCI_URI = `oci://${imageName('model-iris')}`;

const suite = useKserveSuite(NS, ['--model_name', 'iris-oci', '--model_dir', IRIS_DIR]);

interface Container {
  name: string;
  image: string;
  args?: string[];
  env?: { name: string; value?: string }[];
  volumeMounts?: { name: string; mountPath: string }[];
  securityContext?: { runAsUser?: number };
}

describe('modelcars on a real node', () => {
  it('an oci:// InferenceService runs the model image as a modelcar sharing the process namespace and answers V1 and V2 as a local server', { timeout: 420_000 }, async () => {
    const { k, local } = suite;
    const isvc = inferenceService('iris-oci', NS, { storageUri: OCI_URI }) as { spec: { predictor: Record<string, unknown> } };
    // No credentials are involved: the model comes from the image.
    delete isvc.spec.predictor['serviceAccountName'];
    await k.apply([isvc]);
    await k.waitIsvcReady('iris-oci');

    const [pod] = await k.readyPods('serving.kserve.io/inferenceservice=iris-oci');
    const spec = (pod as Obj).spec as { shareProcessNamespace?: boolean; containers: Container[]; initContainers?: Container[] };
    expect(spec.shareProcessNamespace).toBe(true);
    const sidecar = spec.containers.find((c) => c.name === 'modelcar');
    expect(sidecar?.image).toBe(imageName('model-iris'));
    expect(sidecar?.securityContext?.runAsUser).toBe(1000);
    expect(spec.initContainers?.map((c) => c.name)).toEqual(['modelcar-init']);
    const server = spec.containers.find((c) => c.name === 'kserve-container')!;
    expect(server.env).toContainEqual({ name: 'MODEL_INIT_MODE', value: 'async' });
    // Both containers ran: the pre-fetch check passed and the sidecar is up.
    const statuses = (pod as Obj).status as {
      initContainerStatuses: { name: string; state: { terminated?: { exitCode: number } } }[];
      containerStatuses: { name: string; ready: boolean }[];
    };
    expect(statuses.initContainerStatuses.find((s) => s.name === 'modelcar-init')?.state.terminated?.exitCode).toBe(0);
    expect(statuses.containerStatuses.find((s) => s.name === 'modelcar')?.ready).toBe(true);

    const base = `http://${await k.clusterIP('iris-oci-predictor')}`;
    await waitRoutable(base, 'iris-oci');
    const v1 = await request(`${base}/v1/models/iris-oci:predict`, V1_IRIS);
    expect(v1.status, v1.body).toBe(200);
    expect(JSON.parse(v1.body)).toEqual(await answerOf(`${local.url}/v1/models/iris-oci:predict`, V1_IRIS));
    const v2 = await request(`${base}/v2/models/iris-oci/infer`, V2_IRIS);
    expect(v2.status, v2.body).toBe(200);
    const want = (await answerOf(`${local.url}/v2/models/iris-oci/infer`, V2_IRIS)) as { outputs: unknown[] };
    expect((JSON.parse(v2.body) as { outputs: unknown[] }).outputs).toEqual(want.outputs);

    // The server reads the model through the sidecar: /mnt/models is its link into the image.
    const link = await k.node.kubectlOk(['exec', '-n', NS, pod!.metadata.name, '-c', 'kserve-container', '--', 'sh', '-c', 'readlink /mnt/models && ls /mnt/models/']);
    expect(link).toMatch(/^\/proc\/\d+\/root\/models\nmodel\.onnx\n$/);
  });
});

/**
 * A custom-model container on the real node (#17): kserve-ts-custom-model (built FROM
 * kserve-ts-server with examples/custom-model compiled as its --model_module) as the
 * predictor's own container, KServe's custom predictor, with its model from a STORAGE_URI
 * (the iris modelcar, so no credentials are involved). Its TypeScript pre- and
 * postprocessing answer through the predictor's Service exactly as the same module served by
 * a local server, response headers included.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { IRIS_DIR, ROOT } from '../../helpers/server.js';
import { imageName } from '../../images/docker.js';
import { type Obj, answerOf, request, useKserveSuite, waitRoutable } from './kserve.js';

const NS = `custom-${process.pid}`;
const MODEL = 'iris-species';
const MODULE = path.join(ROOT, 'examples/custom-model/iris-classifier.ts');
// Millimetres, as the example takes them: setosa, versicolor, virginica.
const V1_MM = {
  instances: [
    [51, 35, 14, 2],
    [68, 28, 48, 14],
    [63, 33, 60, 25],
  ],
};
const V2_MM = { inputs: [{ name: 'measurements_mm', shape: [3, 4], datatype: 'FP32', data: V1_MM.instances.flat() }] };

const suite = useKserveSuite(NS, ['--model_name', MODEL, '--model_module', MODULE, '--model_dir', IRIS_DIR]);

describe('a custom-model container on a real node', () => {
  it('an InferenceService with the custom-model image as its predictor container serves the TypeScript model (V1, V2) as a local server does', { timeout: 420_000 }, async () => {
    const { k, local } = suite;
    await k.apply([
      {
        apiVersion: 'serving.kserve.io/v1beta1',
        kind: 'InferenceService',
        metadata: { name: MODEL, namespace: NS },
        spec: {
          predictor: {
            containers: [
              {
                name: 'kserve-container',
                image: imageName('custom-model'),
                imagePullPolicy: 'IfNotPresent',
                // The image's entrypoint names the module; KServe's custom containers take their model's name and folder as arguments.
                args: ['--model_name', MODEL, '--model_dir', '/mnt/models'],
                env: [{ name: 'STORAGE_URI', value: `oci://${imageName('model-iris')}` }],
                ports: [{ containerPort: 8080, protocol: 'TCP' }],
                resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '1', memory: '1Gi' } },
              },
            ],
          },
        },
      },
    ]);
    const isvc = await k.waitIsvcReady(MODEL);
    expect(isvc.status.clusterServingRuntimeName).toBeUndefined();
    const [pod] = await k.readyPods(`serving.kserve.io/inferenceservice=${MODEL}`);
    const containers = ((pod as Obj).spec as { containers: { name: string; image: string }[] }).containers;
    expect(containers.find((c) => c.name === 'kserve-container')?.image).toBe(imageName('custom-model'));

    const base = `http://${await k.clusterIP(`${MODEL}-predictor`)}`;
    await waitRoutable(base, MODEL);
    const v1 = await request(`${base}/v1/models/${MODEL}:predict`, V1_MM);
    expect(v1.status, v1.body).toBe(200);
    expect(JSON.parse(v1.body)).toEqual(await answerOf(`${local.url}/v1/models/${MODEL}:predict`, V1_MM));
    expect((JSON.parse(v1.body) as { predictions: unknown[] }).predictions).toEqual(['setosa', 'versicolor', 'virginica']);
    // postprocess's response header crosses the Service.
    expect(v1.headers['x-iris-rows']).toBe('3');

    const v2 = await request(`${base}/v2/models/${MODEL}/infer`, V2_MM);
    expect(v2.status, v2.body).toBe(200);
    const want = (await answerOf(`${local.url}/v2/models/${MODEL}/infer`, V2_MM)) as { outputs: unknown[] };
    expect((JSON.parse(v2.body) as { outputs: unknown[] }).outputs).toEqual(want.outputs);

    // preprocess's validation is the model's own 400, as locally.
    const bad = await request(`${base}/v1/models/${MODEL}:predict`, { instances: [[-1, 35, 14, 2]] });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatch(/non-negative millimetres/);
  });
});

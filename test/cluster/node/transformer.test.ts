/**
 * A transformer in front of a predictor on the real node (#17): an InferenceService with
 * spec.transformer (kserve-ts-transformer, examples/transformer as its --model_module) and
 * spec.predictor (the iris ONNX model from its modelcar). The controller gives the
 * transformer --predictor_host {isvc}-predictor.{ns}, which cluster DNS resolves; clients
 * send millimetres to the transformer's Service, it forwards centimetres to the predictor over
 * V2 and answers species names, over V1 and V2.
 */
import { describe, expect, it } from 'vitest';
import { imageName } from '../../images/docker.js';
import { type Obj, request, useKserveSuite, waitRoutable } from './kserve.js';

const NS = `transformer-${process.pid}`;
const NAME = 'iris-tx';
// Millimetres: setosa, versicolor, virginica (the same rows as the custom-model suite).
const V1_MM = {
  instances: [
    [51, 35, 14, 2],
    [68, 28, 48, 14],
    [63, 33, 60, 25],
  ],
};
const V2_MM = { inputs: [{ name: 'measurements_mm', shape: [3, 4], datatype: 'FP32', data: V1_MM.instances.flat() }] };
const SPECIES = ['setosa', 'versicolor', 'virginica'];
const SMALL = { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '1', memory: '1Gi' } };

const suite = useKserveSuite(NS);

describe('a transformer and a predictor on a real node', () => {
  it('spec.transformer + spec.predictor: the transformer reaches {isvc}-predictor.{ns} by DNS and answers species over V1 and V2', { timeout: 420_000 }, async () => {
    const { k } = suite;
    await k.apply([
      {
        apiVersion: 'serving.kserve.io/v1beta1',
        kind: 'InferenceService',
        metadata: { name: NAME, namespace: NS },
        spec: {
          predictor: { model: { modelFormat: { name: 'onnx' }, storageUri: `oci://${imageName('model-iris')}`, resources: SMALL } },
          transformer: {
            containers: [{ name: 'kserve-container', image: imageName('transformer'), imagePullPolicy: 'IfNotPresent', args: ['--predictor_protocol', 'v2'], resources: SMALL }],
          },
        },
      },
    ]);
    await k.waitIsvcReady(NAME);
    const [pod] = await k.readyPods(`serving.kserve.io/inferenceservice=${NAME},component=transformer`);
    const args = ((pod as Obj).spec as { containers: { name: string; args: string[] }[] }).containers.find((c) => c.name === 'kserve-container')!.args;
    expect(args.join(' ')).toContain(`--predictor_host ${NAME}-predictor.${NS}`);

    const base = `http://${await k.clusterIP(`${NAME}-transformer`)}`;
    await waitRoutable(base, NAME);
    const v1 = await request(`${base}/v1/models/${NAME}:predict`, V1_MM);
    expect(v1.status, v1.body).toBe(200);
    expect((JSON.parse(v1.body) as { predictions: unknown[] }).predictions).toEqual(SPECIES);
    const v2 = await request(`${base}/v2/models/${NAME}/infer`, V2_MM);
    expect(v2.status, v2.body).toBe(200);
    const outputs = (JSON.parse(v2.body) as { outputs: { name: string; data: unknown[] }[] }).outputs;
    expect(outputs.find((o) => o.name === 'species')?.data).toEqual(SPECIES);
    // The transformer's own validation answers 400 without reaching the predictor.
    const bad = await request(`${base}/v1/models/${NAME}:predict`, { instances: [[-1, 35, 14, 2]] });
    expect(bad.status).toBe(400);
  });
});

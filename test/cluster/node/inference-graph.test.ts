/**
 * InferenceGraphs on the real node (#29): two InferenceServices (the TypeScript custom
 * model that names iris species from millimetres, and the iris ONNX model from its
 * modelcar) and four graphs over them, one per router type, each run by a kserve-ts-router
 * pod the controller made, reached through the router's ClusterIP; `status.url` as the
 * ingress config makes it; a graph naming a missing InferenceService says so in its status.
 * The splitter's shares over 1,000 requests stay within ±5 points of its weights.
 */
import { describe, expect, it } from 'vitest';
import { waitFor } from '../../controller/harness/index.js';
import { imageName } from '../../images/docker.js';
import { IS_SETOSA, ROUTE_LABELS, ROUTE_NAMES } from '../../router/conditions.js';
import { type Obj, condition, request, useKserveSuite } from './kserve.js';

const NS = `graph-${process.pid}`;
const SMALL = { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '1', memory: '1Gi' } };
const SETOSA = { instances: [[51, 35, 14, 2]] };
const VERSICOLOR = { instances: [[68, 28, 48, 14]] };

const suite = useKserveSuite(NS);

const species = {
  apiVersion: 'serving.kserve.io/v1beta1',
  kind: 'InferenceService',
  metadata: { name: 'species', namespace: NS },
  spec: {
    predictor: {
      containers: [
        {
          name: 'kserve-container',
          image: imageName('custom-model'),
          imagePullPolicy: 'IfNotPresent',
          args: ['--model_name', 'species', '--model_dir', '/mnt/models'],
          env: [{ name: 'STORAGE_URI', value: `oci://${imageName('model-iris')}` }],
          ports: [{ containerPort: 8080, protocol: 'TCP' }],
          resources: SMALL,
        },
      ],
    },
  },
};

const iris = {
  apiVersion: 'serving.kserve.io/v1beta1',
  kind: 'InferenceService',
  metadata: { name: 'iris', namespace: NS },
  spec: { predictor: { model: { modelFormat: { name: 'onnx' }, storageUri: `oci://${imageName('model-iris')}`, resources: SMALL } } },
};

function graph(name: string, root: Record<string, unknown>): object {
  return { apiVersion: 'serving.kserve.io/v1alpha1', kind: 'InferenceGraph', metadata: { name, namespace: NS }, spec: { nodes: { root } } };
}

const GRAPHS = [
  graph('sequence', {
    routerType: 'Sequence',
    steps: [
      { name: 'species', serviceName: 'species', dependency: 'Hard' },
      { name: 'iris', serviceName: 'iris', data: '$request', condition: IS_SETOSA },
    ],
  }),
  graph('switch', {
    routerType: 'Switch',
    steps: [
      { serviceName: 'species', condition: ROUTE_NAMES },
      { serviceName: 'iris', condition: ROUTE_LABELS },
    ],
  }),
  graph('ensemble', {
    routerType: 'Ensemble',
    steps: [
      { name: 'species', serviceName: 'species' },
      { name: 'iris', serviceName: 'iris' },
    ],
  }),
  graph('splitter', {
    routerType: 'Splitter',
    steps: [
      { serviceName: 'species', weight: 30 },
      { serviceName: 'iris', weight: 70 },
    ],
  }),
];

async function readyGraph(name: string): Promise<{ ig: Obj; base: string }> {
  const { k } = suite;
  const ig = await waitFor(() => k.getJson(['get', 'inferencegraph', name, '-n', NS]), {
    timeoutMs: 240_000,
    intervalMs: 1_000,
    description: `InferenceGraph ${name} Ready`,
    until: (o) => condition(o, 'Ready')?.status === 'True',
  });
  const base = `http://${await k.clusterIP(name)}`;
  // The Service answers a little after the pod is Ready (kube-proxy's rules lag).
  await waitFor(async () => (await request(`${base}/readyz`, undefined, 2_000)).status === 200, {
    timeoutMs: 30_000,
    intervalMs: 250,
    description: `${base} routes to the router`,
  });
  return { ig, base };
}

const json = (body: string): { predictions: unknown[] } => JSON.parse(body) as { predictions: unknown[] };

describe('InferenceGraphs on a real node', () => {
  it("one graph per router type over two InferenceServices, through the routers' ClusterIPs", { timeout: 900_000 }, async () => {
    const { k } = suite;
    await k.apply([species, iris, ...GRAPHS]);
    await Promise.all([k.waitIsvcReady('species'), k.waitIsvcReady('iris')]);

    // Sequence: the species model, then (for setosa only) the iris model on the request.
    const seq = await readyGraph('sequence');
    expect(seq.ig.status.url).toBe(`http://sequence-${NS}.example.com`);
    expect(seq.ig.status.address.url).toBe(`http://sequence.${NS}.svc.cluster.local`);
    const setosa = await request(`${seq.base}/`, SETOSA);
    expect(setosa.status, setosa.body).toBe(200);
    expect(json(setosa.body).predictions.every((p) => typeof p === 'number')).toBe(true);
    const versicolor = await request(`${seq.base}/`, VERSICOLOR);
    expect([versicolor.status, json(versicolor.body).predictions]).toEqual([200, ['versicolor']]);
    const metrics = (await request(`${seq.base}/metrics`)).body;
    expect(metrics).toMatch(/router_step_duration_seconds_count\{node="root",step="species",protocol="rest"\} 2/);
    expect(metrics).toMatch(/router_step_duration_seconds_count\{node="root",step="iris",protocol="rest"\} 1/);

    // Switch: the request's `route` picks the step.
    const sw = await readyGraph('switch');
    expect(json((await request(`${sw.base}/`, { ...SETOSA, route: 'names' })).body).predictions).toEqual(['setosa']);
    const labels = await request(`${sw.base}/`, { ...SETOSA, route: 'labels' });
    expect(json(labels.body).predictions.every((p) => typeof p === 'number')).toBe(true);
    const none = await request(`${sw.base}/`, { ...SETOSA, route: 'none' });
    expect([none.status, JSON.parse(none.body)]).toEqual([404, { error: 'Failed to process request', cause: 'None of the routes matched with the switch condition' }]);

    // Ensemble: both answers, under the step names.
    const ens = await readyGraph('ensemble');
    const both = JSON.parse((await request(`${ens.base}/`, SETOSA)).body) as Record<string, { predictions: unknown[] }>;
    expect(Object.keys(both).sort()).toEqual(['iris', 'species']);
    expect(both['species']!.predictions).toEqual(['setosa']);

    // Splitter: 1,000 requests, each answered by one step; shares within ±5 points of 30 / 70.
    const split = await readyGraph('splitter');
    let toSpecies = 0;
    for (let i = 0; i < 1000; i++) {
      const r = await request(`${split.base}/`, SETOSA);
      expect(r.status, r.body).toBe(200);
      if (typeof json(r.body).predictions[0] === 'string') toSpecies++;
    }
    expect(toSpecies).toBeGreaterThanOrEqual(250);
    expect(toSpecies).toBeLessThanOrEqual(350);
  });

  it('a graph naming a missing InferenceService says so in its status and gets no router', { timeout: 300_000 }, async () => {
    const { k } = suite;
    await k.apply([graph('ghost', { routerType: 'Sequence', steps: [{ serviceName: 'absent' }] })]);
    const ig = await waitFor(() => k.getJson(['get', 'inferencegraph', 'ghost', '-n', NS]), {
      timeoutMs: 120_000,
      intervalMs: 1_000,
      description: 'InferenceGraph ghost reports the missing InferenceService',
      until: (o) => condition(o, 'InferenceServicesReady')?.reason === 'InferenceServiceNotFound',
    });
    expect(condition(ig, 'InferenceServicesReady')?.message).toBe(`InferenceService "absent" not found in namespace ${NS}`);
    expect(condition(ig, 'Ready')?.status).toBe('False');
    expect((await k.node.kubectl(['get', 'deployment', 'ghost', '-n', NS])).code).not.toBe(0);
  });
});

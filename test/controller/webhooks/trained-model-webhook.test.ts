/**
 * The TrainedModel webhook's handler: CREATE asks for the parent, UPDATE never does (the
 * fields it would check are immutable, and the controller's finalizer updates must pass
 * while the parent is gone), an UPDATE that finishes a deletion passes, and hostile input
 * (every field as every wrong JSON type, missing fields) is a clean 400 or a 403 with a
 * message, never a crash. The parent lookup over the real API server is exercised by
 * test/controller/trained-model.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { TrainedModel } from '../../../controller/api/trained-model.js';
import type { ParentFacts } from '../../../controller/reconcile/multi-model/parent-facts.js';
import { BadAdmissionReview, type AdmissionRequest } from '../../../controller/webhooks/admission.js';
import { trainedModelValidatingWebhook } from '../../../controller/webhooks/trained-model/trained-model-webhook.js';

const kind = { group: 'serving.kserve.io', version: 'v1alpha1', kind: 'TrainedModel' };

function tm(): TrainedModel {
  return { metadata: { name: 'mnist', namespace: 'models' }, spec: { inferenceService: 'mms', model: { storageUri: 's3://models/mnist', framework: 'onnx', memory: '256Mi' } } };
}

/** A webhook whose parent is `facts`, recording which parents it was asked for. */
function webhook(facts: ParentFacts | undefined) {
  const asked: string[] = [];
  const handler = trainedModelValidatingWebhook((ns, t) => {
    asked.push(`${ns}/${t.spec.inferenceService}`);
    return Promise.resolve(facts);
  });
  return { handler, asked };
}

const request = (operation: AdmissionRequest['operation'], object: unknown, oldObject?: unknown): AdmissionRequest => ({
  uid: 'u',
  kind,
  namespace: 'models',
  operation,
  object,
  ...(oldObject ? { oldObject } : {}),
});

describe('the TrainedModel webhook', () => {
  it('CREATE: asks for the parent in the request namespace and allows a model that fits', async () => {
    const w = webhook({ multiModel: true, memoryLimit: '1Gi', memoryInUse: ['512Mi'] });
    expect(await w.handler(request('CREATE', tm()))).toEqual({ allowed: true });
    expect(w.asked).toEqual(['models/mms']);
  });

  it('CREATE: a missing parent is a 403 with the message', async () => {
    const w = webhook(undefined);
    expect(await w.handler(request('CREATE', tm()))).toEqual({
      allowed: false,
      status: { code: 403, reason: 'Forbidden', message: 'Inference Service "mms" is not found. Trained Model "mnist" cannot deploy' },
    });
  });

  it('UPDATE: never asks for the parent; a deletion being finished passes even with a changed field', async () => {
    const w = webhook(undefined);
    const changed = { ...tm(), spec: { ...tm().spec, model: { ...tm().spec.model, storageUri: 's3://models/mnist-v2' } } };
    expect(await w.handler(request('UPDATE', changed, tm()))).toEqual({ allowed: true });
    const deleting = { ...tm(), metadata: { ...tm().metadata, deletionTimestamp: '2026-01-01T00:00:00Z' }, spec: { ...tm().spec, inferenceService: 'other' } };
    expect(await w.handler(request('UPDATE', deleting, tm()))).toEqual({ allowed: true });
    expect(w.asked).toEqual([]);
  });

  it('DELETE is allowed without reading anything', async () => {
    const w = webhook(undefined);
    expect(await w.handler(request('DELETE', undefined, tm()))).toEqual({ allowed: true });
  });

  const paths = [
    ['metadata', 'name'],
    ['spec'],
    ['spec', 'inferenceService'],
    ['spec', 'model'],
    ['spec', 'model', 'storageUri'],
    ['spec', 'model', 'framework'],
    ['spec', 'model', 'memory'],
  ];
  const confusions: unknown[] = [null, 7, true, 'text', [], {}, [1, 'a'], { nested: { x: 1 } }];

  it.each(paths.map((p) => [p.join('.'), p] as const))('%s as every wrong JSON type, or missing: a 400 or a 403 with a message, never a crash', async (_name, p) => {
    const w = webhook({ multiModel: true, memoryLimit: '1Gi', memoryInUse: [] });
    for (const value of [...confusions, undefined]) {
      for (const operation of ['CREATE', 'UPDATE'] as const) {
        const object = structuredClone(tm()) as unknown as Record<string, Record<string, unknown>>;
        let at: Record<string, unknown> = object;
        for (const k of p.slice(0, -1)) at = at[k] as Record<string, unknown>;
        if (value === undefined) delete at[p.at(-1)!];
        else at[p.at(-1)!] = value;
        const where = `${operation} ${p.join('.')} = ${JSON.stringify(value)}`;
        try {
          const verdict = await w.handler(request(operation, object, operation === 'UPDATE' ? tm() : undefined));
          if (!verdict.allowed) {
            expect(verdict.status.code, where).toBe(403);
            expect(verdict.status.message, where).not.toMatch(/TypeError|Cannot read|is not a function|undefined/);
          }
        } catch (err) {
          expect(err, where).toBeInstanceOf(BadAdmissionReview);
          expect((err as Error).message, where).toMatch(/^TrainedModel is malformed: /);
        }
      }
    }
  });

  it('a number of bytes is a memory quantity (the CRD admits int-or-string)', async () => {
    const w = webhook({ multiModel: true, memoryLimit: '1Gi', memoryInUse: [] });
    const bytes = { ...tm(), spec: { ...tm().spec, model: { ...tm().spec.model, memory: 1048576 } } };
    expect(await w.handler(request('CREATE', bytes))).toEqual({ allowed: true });
  });
});

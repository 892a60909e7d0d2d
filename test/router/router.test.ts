/**
 * kserve-ts's InferenceGraph router on the REST cases of graph-cases.ts: real kserve-ts
 * servers on loopback as the steps, the router in-process, each answer checked for the
 * status, Content-Type and body KServe's cmd/router gives (test/router-differential/
 * checks the same cases against KServe's router itself).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GRAPH_CASES, type Steps } from './graph-cases.js';
import { startRouter } from './our-router.js';
import { type Predictors, startPredictors, stepsOf } from './predictors.js';
import { send } from './send.js';

let predictors: Predictors;
let steps: Steps;

beforeAll(async () => {
  predictors = await startPredictors();
  steps = await stepsOf(predictors);
});

afterAll(async () => {
  await predictors?.close();
});

describe('the router answers as KServe cmd/router', () => {
  for (const c of GRAPH_CASES) {
    it(c.name, async () => {
      const router = await startRouter(c.graph(steps), { env: c.propagate === undefined ? {} : { PROPAGATE_HEADERS: c.propagate }, flags: ['--readiness_follows_steps=false'] });
      try {
        for (const [req, want] of c.requests) {
          const gate = c.held ? predictors.newGate() : undefined;
          const got = await send(router.url, req);
          gate?.release();
          const text = got.body.toString('utf8');
          const body = typeof want.body === 'string' ? want.body : want.body instanceof RegExp ? (want.body.test(text) ? text : want.body.source) : want.body(steps);
          expect({ status: got.status, contentType: got.contentType, body: text }).toEqual({ status: want.status, contentType: want.contentType, body });
        }
      } finally {
        await router.close();
      }
    });
  }
});

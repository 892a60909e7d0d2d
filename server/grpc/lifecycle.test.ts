/**
 * Shutdown drains gRPC: in-flight calls finish, new ones are refused.
 *
 * The call is in flight by construction: held at the model (test/helpers/model-gate.ts) from
 * before the server closes until the test has seen the close refuse a new call, so no
 * outcome depends on how long an inference takes. The grace period is far longer than
 * anything here waits, so only a server that does not drain can cut the call.
 */
import { expect, it } from 'vitest';
import { grpc, grpcClient, grpcError } from '../../test/grpc/client.js';
import { ModelGate } from '../../test/helpers/model-gate.js';
import { makeRepository, startServer } from '../../test/helpers/server.js';

it('finishes an in-flight ModelInfer when the server closes, then refuses new calls', async () => {
  const repo = makeRepository({ m: 'identity_fp32' });
  const gate = new ModelGate();
  const t = await startServer(['--model_repository', repo.dir, '--grace_period_seconds', '600'], { grpc: true, backends: gate.backends() });
  const c = grpcClient(t.grpcAddress as string);
  try {
    gate.hold();
    const inflight = c.infer({
      model_name: 'm',
      inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [2, 16], contents: { fp32_contents: Array.from({ length: 32 }, (_, i) => i) } }],
    });
    // The server has decoded the request and handed it to the model, which holds it.
    await gate.untilHeld(1);
    let closedYet = false;
    const closed = t.close().then(() => (closedYet = true));
    // While the call is held, the closing server refuses a new one on a new connection...
    const late = grpcClient(t.grpcAddress as string);
    try {
      const refused = await grpcError(late.call('ServerLive', {}, { deadline: Date.now() + 30_000 }));
      expect(refused.code).toBe(grpc.status.UNAVAILABLE);
    } finally {
      late.close();
    }
    // ...and has not finished closing: it waits for the call it holds.
    expect(closedYet).toBe(false);
    gate.release();
    const res = await inflight;
    expect(res.outputs[0]?.shape).toEqual(['2', '16']);
    expect(res.outputs[0]?.contents?.fp32_contents).toEqual(Array.from({ length: 32 }, (_, i) => i));
    await closed;
    const after = await grpcError(c.call('ServerLive', {}, { deadline: Date.now() + 2000 }));
    expect([grpc.status.UNAVAILABLE, grpc.status.DEADLINE_EXCEEDED]).toContain(after.code);
  } finally {
    gate.release();
    c.close();
    await t.close();
    repo.cleanup();
  }
});

/** Shutdown drains gRPC: in-flight calls finish, new ones are refused. */
import { expect, it } from 'vitest';
import { grpc, grpcClient, grpcError } from '../../test/grpc/client.js';
import { makeRepository, startServer } from '../../test/helpers/server.js';

it('finishes an in-flight ModelInfer when the server closes, then refuses new calls', async () => {
  const repo = makeRepository({ slow: 'slow_matmul' });
  const t = await startServer(['--model_repository', repo.dir], { grpc: true });
  const c = grpcClient(t.grpcAddress as string);
  try {
    const rows = 1000; // about 0.2 s of work (test/fixtures/models/README.md)
    const inflight = c.infer({
      model_name: 'slow',
      inputs: [{ name: 'X', datatype: 'FP32', shape: [rows, 1024] }],
      raw_input_contents: [Buffer.from(new Float32Array(rows * 1024).fill(1).buffer)],
    });
    // Shut down only once the server has decoded the request and handed it to the model.
    while (!/request_preprocess_seconds_count\{model_name="slow"\} 1/.test(await t.server.metrics.render())) {
      await new Promise((r) => setTimeout(r, 5));
    }
    const closed = t.close();
    const res = await inflight;
    expect(res.outputs[0]?.shape).toEqual([String(rows), '1024']);
    expect(new Float32Array(Uint8Array.from(res.raw_output_contents[0] as Uint8Array).buffer).every((v) => Math.abs(v - 1) < 1e-4)).toBe(true);
    await closed;
    const after = await grpcError(c.call('ServerLive', {}, { deadline: Date.now() + 2000 }));
    expect([grpc.status.UNAVAILABLE, grpc.status.DEADLINE_EXCEEDED]).toContain(after.code);
  } finally {
    c.close();
    await t.close();
    repo.cleanup();
  }
});

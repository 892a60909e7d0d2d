/**
 * Every metric the server registers is observed by the traffic that should move it, and the
 * request counter's labels mean the same on every transport: model_name, protocol (v1, v2,
 * grpc) and status_code as an HTTP status (docs/architecture.md, "Metrics").
 */
import { describe, expect, it } from 'vitest';
import { grpcError } from './grpc/client.js';
import { expectError, get, metricValue, post } from './helpers/http.js';
import { useGrpcFixture } from './helpers/grpc-fixture.js';

const f = useGrpcFixture({ m: { file: 'scale2_fp32', config: 'max_batch_size: 8\ndynamic_batching { max_queue_delay_microseconds: 1000 }\n' } });

const v2Body = { inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 3], data: [1, 2, 3] }] };
const grpcRequest = (datatype: string) => ({ model_name: 'm', inputs: [{ name: 'INPUT0', datatype, shape: [1, 3], contents: { fp32_contents: [1, 2, 3] } }] });

describe('metrics', () => {
  it('every registered metric has a sample after V1, V2, gRPC and explain traffic', async () => {
    expect((await post(`${f.server.url}/v2/models/m/infer`, v2Body)).status).toBe(200);
    expect((await post(`${f.server.url}/v1/models/m:predict`, { instances: [[1, 2, 3]] })).status).toBe(200);
    await f.client.infer(grpcRequest('FP32'));
    expectError(await post(`${f.server.url}/v1/models/m:explain`, { instances: [[1, 2, 3]] }), 501);
    await get(`${f.server.url}/metrics`); // the queue-depth gauge is read at scrape time
    const unobserved: string[] = [];
    const metrics = f.server.server.metrics.registry.getMetricsAsArray();
    expect(metrics.map((m) => m.name)).toEqual(
      expect.arrayContaining([
        'request_preprocess_seconds',
        'request_predict_seconds',
        'request_postprocess_seconds',
        'request_explain_seconds',
        'kserve_inference_requests_total',
        'kserve_batch_size',
        'kserve_batch_queue_seconds',
        'kserve_model_queue_depth',
        'kserve_request_bytes_held',
      ]),
    );
    for (const metric of metrics) {
      // prom-client types the array as plain descriptions; each is a live metric with get().
      const { values } = await (metric as unknown as { get(): Promise<{ values: unknown[] }> }).get();
      if (values.length === 0) unobserved.push(metric.name);
    }
    expect(unobserved).toEqual([]);
  });

  it('counts an outcome with the same labels whichever transport carried it', async () => {
    const text0 = (await get(`${f.server.url}/metrics`)).text;
    const count = (text: string, protocol: string, status: string) => metricValue(text, 'kserve_inference_requests_total', { model_name: 'm', protocol, status_code: status });
    expect((await post(`${f.server.url}/v2/models/m/infer`, v2Body)).status).toBe(200);
    await f.client.infer(grpcRequest('FP32'));
    expect((await post(`${f.server.url}/v1/models/m:predict`, { instances: [[1, 2, 3]] })).status).toBe(200);
    expectError(await post(`${f.server.url}/v2/models/m/infer`, { inputs: [{ ...v2Body.inputs[0], datatype: 'INT32' }] }), 400);
    await grpcError(f.client.infer(grpcRequest('INT32')));
    expectError(await post(`${f.server.url}/v1/models/m:predict`, { instances: 'x' }), 400);
    const text1 = (await get(`${f.server.url}/metrics`)).text;
    for (const protocol of ['v1', 'v2', 'grpc']) {
      expect(count(text1, protocol, '200') - count(text0, protocol, '200'), `${protocol} 200`).toBe(1);
      expect(count(text1, protocol, '400') - count(text0, protocol, '400'), `${protocol} 400`).toBe(1);
    }
    // No status names (OK, INVALID_ARGUMENT) and no other label names on any series.
    const series = text1.split('\n').filter((l) => l.startsWith('kserve_inference_requests_total{'));
    for (const l of series) expect(l).toMatch(/^kserve_inference_requests_total\{model_name="[^"]+",protocol="(v1|v2|grpc)",status_code="\d{3}"\} \d+$/);
  });
});

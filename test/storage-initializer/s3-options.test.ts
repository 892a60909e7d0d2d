/**
 * The S3 options KServe's webhook injects or documents that s3.test.ts does not cover,
 * each against moto on loopback: S3_USER_VIRTUAL_BUCKET (virtual-host addressing, bucket
 * in the Host header; *.s3.test resolves to 127.0.0.1 through a test-only preload),
 * AWS_REGION, IRSA (AWS_ROLE_ARN + AWS_WEB_IDENTITY_TOKEN_FILE exchanged at moto's STS), and
 * S3_USE_ACCELERATE (refused with a custom endpoint: only AWS has the accelerate endpoint).
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_HOSTS_PRELOAD, cleanup, installServers, listFiles, runSi, startMoto, startProxy, tempDir, type Running, modelDest } from './helpers.js';

describe('storage-initializer S3 options', () => {
  let moto: Running;
  const dirs: string[] = [];
  const stops: Array<() => Promise<void>> = [];
  const dest = modelDest(dirs);

  beforeAll(async () => {
    moto = await startMoto(installServers().moto, { virtualHost: 's3.test' });
    stops.push(moto.stop);
    const s3 = new S3Client({ endpoint: moto.url, forcePathStyle: true, region: 'us-east-1', credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' } });
    await s3.send(new CreateBucketCommand({ Bucket: 'vmodels' }));
    await s3.send(new PutObjectCommand({ Bucket: 'vmodels', Key: 'model/a.onnx', Body: 'onnx-bytes' }));
    await s3.send(new PutObjectCommand({ Bucket: 'vmodels', Key: 'model/sub/b.bin', Body: 'b-bytes' }));
    s3.destroy();
  }, 600_000);

  afterAll(async () => {
    await Promise.all(stops.map((s) => s()));
    cleanup(...dirs);
  });

  it('addresses the bucket in the Host header with S3_USER_VIRTUAL_BUCKET=true', async () => {
    const base = { AWS_ACCESS_KEY_ID: 'testing', AWS_SECRET_ACCESS_KEY: 'testing', NODE_OPTIONS: `--require ${TEST_HOSTS_PRELOAD}` };
    // moto serves a bucket named by the Host only for the virtual host it was started with
    // (its own port), so success here means the bucket travelled in the Host header.
    const d = dest();
    const r = await runSi(['s3://vmodels/model', d], { ...base, AWS_ENDPOINT_URL: `http://s3.test:${moto.port}`, S3_USER_VIRTUAL_BUCKET: 'true' });
    expect(r.code, r.out).toBe(0);
    expect(listFiles(d)).toEqual(['a.onnx', 'sub/b.bin']);
    // Through a recording proxy: the request lines have no bucket, every Host has it.
    const proxy = await startProxy(moto.port);
    stops.push(proxy.stop);
    await runSi(['s3://vmodels/model', dest()], { ...base, AWS_ENDPOINT_URL: `http://s3.test:${proxy.port}`, S3_USER_VIRTUAL_BUCKET: 'true' });
    expect(proxy.requests.length).toBeGreaterThan(0);
    expect(proxy.requests.every((q) => !/^GET \/vmodels/.test(q) && new RegExp(`\\r\\nhost: vmodels\\.s3\\.test:${proxy.port}\\r\\n`, 'i').test(q))).toBe(true);
  });

  it('signs for AWS_REGION when AWS_DEFAULT_REGION is unset', async () => {
    const proxy = await startProxy(moto.port);
    stops.push(proxy.stop);
    const r = await runSi(['s3://vmodels/model', dest()], { AWS_ENDPOINT_URL: proxy.url, AWS_ACCESS_KEY_ID: 'testing', AWS_SECRET_ACCESS_KEY: 'testing', AWS_REGION: 'eu-west-3' });
    expect(r.code, r.out).toBe(0);
    expect(proxy.requests.every((q) => /Credential=testing\/\d{8}\/eu-west-3\/s3\/aws4_request/.test(q))).toBe(true);
  });

  it('exchanges the web identity token (IRSA) at STS and signs with the temporary credentials', async () => {
    const proxy = await startProxy(moto.port);
    stops.push(proxy.stop);
    const dir = tempDir('si-irsa-');
    dirs.push(dir);
    const tokenFile = path.join(dir, 'token');
    writeFileSync(tokenFile, 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzeXN0ZW06c2VydmljZWFjY291bnQ6a3NlcnZlOm0ifQ.c2ln');
    const d = dest();
    const r = await runSi(['s3://vmodels/model', d], {
      AWS_ENDPOINT_URL: proxy.url,
      AWS_ENDPOINT_URL_STS: proxy.url,
      AWS_ROLE_ARN: 'arn:aws:iam::123456789012:role/kserve-models',
      AWS_WEB_IDENTITY_TOKEN_FILE: tokenFile,
      AWS_DEFAULT_REGION: 'us-east-1',
    });
    expect(r.code, r.out).toBe(0);
    expect(listFiles(d)).toEqual(['a.onnx', 'sub/b.bin']);
    const sts = proxy.requests.filter((q) => /^POST \//.test(q));
    expect(sts.length).toBe(1);
    expect(sts[0]).toMatch(/Action=AssumeRoleWithWebIdentity/);
    const gets = proxy.requests.filter((q) => /^GET \/vmodels/.test(q));
    expect(gets.length).toBeGreaterThan(0);
    // moto hands out temporary keys starting with ASIA; every S3 call is signed with one.
    expect(gets.every((q) => /Credential=ASIA[A-Z0-9]+\//.test(q) && /\r\nx-amz-security-token: /i.test(q))).toBe(true);
    const half = await runSi(['s3://vmodels/model', dest()], { AWS_ENDPOINT_URL: proxy.url, AWS_WEB_IDENTITY_TOKEN_FILE: tokenFile });
    expect(half.code).toBe(1);
    expect(half.out).toMatch(/AWS_WEB_IDENTITY_TOKEN_FILE is set but AWS_ROLE_ARN is not/);
  });

  it('refuses S3_USE_ACCELERATE with a custom endpoint, naming both', async () => {
    const r = await runSi(['s3://vmodels/model', dest()], {
      AWS_ENDPOINT_URL: moto.url,
      S3_USE_ACCELERATE: 'true',
      AWS_ACCESS_KEY_ID: 'testing',
      AWS_SECRET_ACCESS_KEY: 'testing',
    });
    expect(r.code).toBe(1);
    expect(r.out).toContain(`invalid: S3_USE_ACCELERATE=true cannot be combined with the custom endpoint ${moto.url}: transfer acceleration exists only on AWS S3`);
  });
});

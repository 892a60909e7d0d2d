/** Each provider's settings (providers/*-settings.ts), read once from the environment (pure, no servers). */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { configSecrets, loadConfig } from '../../storage-initializer/config.js';
import { PROVIDER_SETTINGS, providerSecrets } from '../../storage-initializer/providers/settings.js';
import { cleanup, tempDir } from './helpers.js';

const NO_SECRET_DIR = { HDFS_SECRET_DIR: '/nonexistent' };

describe('storage-initializer configuration of the new stores', () => {
  const dirs: string[] = [];
  afterAll(() => cleanup(...dirs));

  it('reads Azure, HF and S3 options, with KServe names and defaults', () => {
    const c = loadConfig({
      ...NO_SECRET_DIR,
      AZURE_STORAGE_ACCESS_KEY: 'k',
      AZ_TENANT_ID: 't',
      AZ_CLIENT_ID: 'c',
      AZ_CLIENT_SECRET: 's',
      STORAGE_AZURE_BLOB_ENDPOINT: 'http://127.0.0.1:10000/acct/',
      HF_TOKEN: 'hf_x',
      HF_ENDPOINT: 'http://mirror.local/',
      S3_USE_ACCELERATE: 'true',
    });
    expect(c.azure).toEqual({
      blobEndpoint: 'http://127.0.0.1:10000/acct',
      fileEndpoint: undefined,
      accountKey: 'k',
      servicePrincipal: { tenantId: 't', clientId: 'c', clientSecret: 's' },
      workloadIdentity: undefined,
      credentialProblem: undefined,
      authorityHost: undefined,
    });
    expect(c.hf).toEqual({ endpoint: 'http://mirror.local', token: 'hf_x' });
    expect(c.s3.accelerate).toBe(true);
    expect(Object.isFrozen(c.azure) && Object.isFrozen(c.hf) && Object.isFrozen(c.hdfs)).toBe(true);
    const d = loadConfig(NO_SECRET_DIR);
    expect(d.hf).toEqual({ endpoint: 'https://huggingface.co', token: undefined });
    expect(d.azure.servicePrincipal).toBeUndefined();
    expect(d.s3.webIdentity).toBeUndefined();
    expect(loadConfig({ ...NO_SECRET_DIR, AZURE_CLIENT_ID: 'c', AZURE_TENANT_ID: 't', AZURE_CLIENT_SECRET: 's' }).azure.servicePrincipal).toEqual({
      tenantId: 't',
      clientId: 'c',
      clientSecret: 's',
    });
    expect(loadConfig({ ...NO_SECRET_DIR, HUGGING_FACE_HUB_TOKEN: 'old' }).hf.token).toBe('old');
    // AKS workload identity (no secret), and a lone client id: reported by the Azure provider
    // only, so it cannot fail a run that downloads from elsewhere.
    expect(
      loadConfig({ ...NO_SECRET_DIR, AZURE_CLIENT_ID: 'c', AZURE_TENANT_ID: 't', AZURE_FEDERATED_TOKEN_FILE: '/var/run/secrets/azure/tokens/azure-identity-token' }).azure
        .workloadIdentity,
    ).toEqual({ tenantId: 't', clientId: 'c', tokenFile: '/var/run/secrets/azure/tokens/azure-identity-token' });
    expect(loadConfig({ ...NO_SECRET_DIR, AZURE_CLIENT_ID: 'c' }).azure.credentialProblem).toMatch(/AZ_CLIENT_ID is set but AZ_TENANT_ID is not/);
  });

  it('uses virtual addressing for the legacy global endpoint outside us-east-1, as KServe does', () => {
    expect(loadConfig({ ...NO_SECRET_DIR, AWS_ENDPOINT_URL: 'https://s3.amazonaws.com', AWS_DEFAULT_REGION: 'eu-west-1' }).s3.virtualBucket).toBe(true);
    expect(loadConfig({ ...NO_SECRET_DIR, AWS_ENDPOINT_URL: 'https://s3.amazonaws.com', AWS_DEFAULT_REGION: 'us-east-1' }).s3.virtualBucket).toBe(false);
    expect(loadConfig({ ...NO_SECRET_DIR, AWS_ENDPOINT_URL: 'http://minio:9000', AWS_DEFAULT_REGION: 'eu-west-1' }).s3.virtualBucket).toBe(false);
  });

  it('reads IRSA variables as a pair', () => {
    const c = loadConfig({
      ...NO_SECRET_DIR,
      AWS_ROLE_ARN: 'arn:aws:iam::1:role/r',
      AWS_WEB_IDENTITY_TOKEN_FILE: '/var/run/token',
      AWS_ROLE_SESSION_NAME: 'sess',
      AWS_ENDPOINT_URL_STS: 'http://sts.local',
    });
    expect(c.s3.webIdentity).toEqual({ roleArn: 'arn:aws:iam::1:role/r', tokenFile: '/var/run/token', sessionName: 'sess', stsEndpoint: 'http://sts.local' });
    expect(() => loadConfig({ ...NO_SECRET_DIR, AWS_ROLE_ARN: 'arn' })).toThrow(/AWS_ROLE_ARN is set but AWS_WEB_IDENTITY_TOKEN_FILE is not/);
  });

  it('reads the HDFS secret from its folder, STORAGE_CONFIG and variables, in that order', () => {
    const dir = tempDir('si-hdfs-cfg-');
    dirs.push(dir);
    const secret = path.join(dir, 'creds');
    mkdirSync(secret);
    writeFileSync(path.join(secret, 'HDFS_NAMENODE'), 'http://nn1:9870;http://nn2:9870/');
    writeFileSync(path.join(secret, 'USER_PROXY'), 'from-file');
    writeFileSync(path.join(secret, 'TLS_SKIP_VERIFY'), 'true');
    writeFileSync(path.join(secret, 'HEADERS'), '{"a": 1}');
    writeFileSync(path.join(secret, 'UNRELATED'), 'ignored');
    const c = loadConfig({
      HDFS_SECRET_DIR: secret,
      STORAGE_CONFIG: JSON.stringify({ type: 'hdfs', USER_PROXY: 'from-config', TLS_CA: Buffer.from('PEM').toString('base64') }),
      HDFS_ROOTPATH: '/user/x',
      TLS_KEY: '/ignored/plain/variable',
    });
    expect(c.hdfs).toEqual({
      namenodes: ['http://nn1:9870', 'http://nn2:9870'],
      proxyUser: 'from-config',
      rootPath: '/user/x',
      user: undefined,
      tls: { cert: undefined, key: undefined, ca: 'PEM', skipVerify: true },
      headers: { a: '1' },
      kerberosPrincipal: undefined,
    });
    expect(loadConfig({ HDFS_SECRET_DIR: secret, USER_PROXY: 'from-env' }).hdfs.proxyUser).toBe('from-env');
    writeFileSync(path.join(secret, 'HEADERS'), 'not json');
    expect(() => loadConfig({ HDFS_SECRET_DIR: secret })).toThrow(/HEADERS \(HDFS secret\) must be a JSON object/);
  });

  it('each provider names its own secrets for the output scrubber', () => {
    const c = loadConfig({
      ...NO_SECRET_DIR,
      AWS_ACCESS_KEY_ID: 'aws-key-id',
      AWS_SECRET_ACCESS_KEY: 'aws-secret',
      AWS_SESSION_TOKEN: 'aws-session',
      AWS_ENDPOINT_URL: 'http://u:s3-endpoint-pass@minio:9000',
      GCS_ENDPOINT: 'http://gcs.local/?token=gcs-token',
      AZURE_STORAGE_ACCESS_KEY: 'azure-key',
      AZ_TENANT_ID: 't',
      AZ_CLIENT_ID: 'c',
      AZ_CLIENT_SECRET: 'azure-secret',
      HF_TOKEN: 'hf_token_x',
      HDFS_NAMENODE: 'http://h:hdfs-pass@nn:9870',
      'models.example.com-headers': '{"Authorization":"Bearer header-token-123"}',
    });
    const secrets = configSecrets(c);
    for (const s of [
      'aws-key-id',
      'aws-secret',
      'aws-session',
      's3-endpoint-pass',
      'gcs-token',
      'azure-key',
      'azure-secret',
      'hf_token_x',
      'hdfs-pass',
      'Bearer header-token-123',
      'header-token-123',
    ]) {
      expect(secrets).toContain(s);
    }
    for (const name of Object.keys(PROVIDER_SETTINGS) as (keyof typeof PROVIDER_SETTINGS)[]) {
      expect(providerSecrets({ ...loadConfig(NO_SECRET_DIR), [name]: c[name] }).length, name).toBeGreaterThan(0);
    }
    expect(configSecrets(loadConfig(NO_SECRET_DIR))).toEqual([]);
  });
});

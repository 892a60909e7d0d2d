/**
 * Which provider injects a secret, by its data keys, in KServe's order: one table of
 * {secret keys, provider}. What each provider puts in the pod is the golden cases
 * (golden/azure-*, hf-token, hdfs-credentials, s3-*, gcs-*, https-*).
 */
import type { V1Secret } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { parseCredentialsConfig } from '../../../controller/config/credentials.js';
import { providerFor } from '../../../controller/webhooks/credentials/registry.js';

const config = parseCredentialsConfig(undefined);
const secret = (...keys: string[]): V1Secret => ({ metadata: { name: 's' }, data: Object.fromEntries(keys.map((k) => [k, Buffer.from('v').toString('base64')])) });

describe('credential provider registry', () => {
  it.each<[string[], string | undefined]>([
    [['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY'], 's3'],
    [['gcloud-application-credentials.json'], 'gcs'],
    [['AZ_CLIENT_ID', 'AZ_CLIENT_SECRET', 'AZ_TENANT_ID'], 'azure'],
    [['AZURE_CLIENT_SECRET'], 'azure'],
    [['AZURE_STORAGE_ACCESS_KEY'], 'azure-storage-key'],
    [['https-host', 'headers'], 'https'],
    [['HDFS_NAMENODE', 'USER_PROXY'], 'hdfs'],
    [['HF_TOKEN'], 'hf'],
    // KServe's order decides a secret holding several kinds.
    [['AWS_SECRET_ACCESS_KEY', 'HF_TOKEN'], 's3'],
    [['AZ_CLIENT_SECRET', 'AZURE_STORAGE_ACCESS_KEY'], 'azure'],
    [['HDFS_NAMENODE', 'HF_TOKEN'], 'hdfs'],
    [['token', 'ca.crt'], undefined],
  ])('%j → %s', (keys, want) => {
    expect(providerFor(secret(...keys), config)?.name).toBe(want);
  });
});

/**
 * Self-signed webhook certificates shared by every replica: the first replica to start
 * generates the CA and serving certificate and stores them in a Secret; the others (and
 * later restarts) read it, so the caBundle registered with the API server matches every
 * replica. Create races resolve through the API server: a 409 means another replica won,
 * and its Secret is read instead.
 */
import type { CoreV1Api } from '@kubernetes/client-node';
import { isConflict, isNotFound } from './kube/api-errors.js';
import { type WebhookCertificate, generateSelfSignedCertificates } from './webhooks/index.js';

const CERT = 'tls.crt';
const KEY = 'tls.key';
const CA = 'ca.crt';

export async function sharedSelfSignedCertificate(
  core: CoreV1Api,
  namespace: string,
  name: string,
  dnsNames: readonly string[],
  ipAddresses: readonly string[],
): Promise<WebhookCertificate> {
  const existing = await readCertificateSecret(core, namespace, name);
  if (existing) return existing;
  const generated = generateSelfSignedCertificates({ dnsNames, ipAddresses });
  const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');
  try {
    await core.createNamespacedSecret({
      namespace,
      body: {
        metadata: { name, namespace, labels: { 'app.kubernetes.io/part-of': 'kserve-ts' } },
        type: 'kubernetes.io/tls',
        data: { [CERT]: b64(generated.cert), [KEY]: b64(generated.key), [CA]: b64(generated.caBundle) },
      },
    });
    return generated;
  } catch (err) {
    if (!isConflict(err)) throw err;
    const winner = await readCertificateSecret(core, namespace, name);
    if (!winner) throw new Error(`webhook certificate secret ${namespace}/${name} vanished after a create conflict`, { cause: err });
    return winner;
  }
}

async function readCertificateSecret(core: CoreV1Api, namespace: string, name: string): Promise<WebhookCertificate | undefined> {
  try {
    const secret = await core.readNamespacedSecret({ name, namespace });
    const get = (k: string): string => {
      const v = secret.data?.[k];
      if (!v) throw new Error(`webhook certificate secret ${namespace}/${name} has no ${k}`);
      return Buffer.from(v, 'base64').toString('utf8');
    };
    return { cert: get(CERT), key: get(KEY), caBundle: get(CA) };
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

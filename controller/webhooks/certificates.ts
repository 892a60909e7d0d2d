/**
 * The webhook server's TLS material: read from a mounted secret directory (cert-manager or
 * an operator-provided `kubernetes.io/tls` secret: `tls.crt`, `tls.key`, optional `ca.crt`),
 * or, for development and tests, generated at start-up: a self-signed CA and a serving
 * certificate it signs (ECDSA P-256, SHA-256), with `localhost`, `127.0.0.1` and `::1` always
 * among the subject alternative names. `caBundle` is the PEM the API server must trust
 * (it goes into the webhook configurations).
 */
import { createHash, createPrivateKey, generateKeyPairSync, type KeyObject, randomBytes, sign, X509Certificate } from 'node:crypto';
import { readFileSync, existsSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';
import * as der from './der.js';

export interface WebhookCertificate {
  /** PEM serving certificate. */
  cert: string;
  /** PEM private key of `cert`. */
  key: string;
  /** PEM CA certificate(s) that verify `cert`. */
  caBundle: string;
}

export class CertificateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CertificateError';
  }
}

/** Reads `tls.crt`, `tls.key` and, when present, `ca.crt` (else `tls.crt` is its own CA). */
export function loadCertificates(dir: string): WebhookCertificate {
  const file = (name: string): string => {
    const path = join(dir, name);
    try {
      return readFileSync(path, 'utf8');
    } catch (err) {
      throw new CertificateError(`cannot read ${path}: ${(err as Error).message}`);
    }
  };
  const cert = file('tls.crt');
  const key = file('tls.key');
  const caBundle = existsSync(join(dir, 'ca.crt')) ? file('ca.crt') : cert;
  let x509: X509Certificate;
  let privateKey: KeyObject;
  try {
    x509 = new X509Certificate(cert);
    privateKey = createPrivateKey(key);
  } catch (err) {
    throw new CertificateError(`invalid certificate or key in ${dir}: ${(err as Error).message}`);
  }
  if (!x509.checkPrivateKey(privateKey)) throw new CertificateError(`tls.key in ${dir} does not belong to tls.crt`);
  return { cert, key, caBundle };
}

export interface SelfSignedOptions {
  /** DNS names besides `localhost` (e.g. from `serviceDnsNames`). */
  dnsNames?: readonly string[];
  /** IP addresses besides 127.0.0.1 and ::1. */
  ipAddresses?: readonly string[];
  /** Serving certificate lifetime; the CA lives ten times as long. Default 365. */
  validityDays?: number;
  commonName?: string;
}

/** The names a Service's clients use: `svc`, `svc.ns`, `svc.ns.svc`, `svc.ns.svc.cluster.local`. */
export function serviceDnsNames(service: string, namespace: string): string[] {
  return [service, `${service}.${namespace}`, `${service}.${namespace}.svc`, `${service}.${namespace}.svc.cluster.local`];
}

export function generateSelfSignedCertificates(options: SelfSignedOptions = {}): WebhookCertificate {
  const days = options.validityDays ?? 365;
  const dnsNames = unique(['localhost', ...(options.dnsNames ?? [])]);
  const ips = unique(['127.0.0.1', '::1', ...(options.ipAddresses ?? [])]);
  for (const ip of ips) {
    if (!isIP(ip)) throw new CertificateError(`'${ip}' is not an IP address`);
    if (isIP(ip) === 6 && ip.includes('.')) throw new CertificateError(`'${ip}': IPv6 with an embedded IPv4 address is not supported`);
  }

  const ca = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const leaf = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const caName = name(`${options.commonName ?? 'kserve-ts-webhook'} CA`);
  const caSpki = ca.publicKey.export({ type: 'spki', format: 'der' });
  const leafSpki = leaf.publicKey.export({ type: 'spki', format: 'der' });

  const caDer = certificate({
    issuer: caName,
    subject: caName,
    spki: caSpki,
    days: days * 10,
    signer: ca.privateKey,
    extensions: [
      extension('2.5.29.19', true, der.sequence(der.boolean(true))),
      extension('2.5.29.15', true, der.namedBits([0, 5, 6])), // digitalSignature, keyCertSign, cRLSign
      extension('2.5.29.14', false, der.octetString(keyId(caSpki))),
    ],
  });
  const leafDer = certificate({
    issuer: caName,
    subject: name(options.commonName ?? dnsNames[1] ?? 'kserve-ts-webhook'),
    spki: leafSpki,
    days,
    signer: ca.privateKey,
    extensions: [
      extension('2.5.29.19', true, der.sequence()),
      extension('2.5.29.15', true, der.namedBits([0])), // digitalSignature
      extension('2.5.29.37', false, der.sequence(der.oid('1.3.6.1.5.5.7.3.1'))), // serverAuth
      extension('2.5.29.17', false, der.sequence(...dnsNames.map((d) => der.implicit(2, Buffer.from(d, 'ascii'))), ...ips.map((ip) => der.implicit(7, ipBytes(ip))))),
      extension('2.5.29.14', false, der.octetString(keyId(leafSpki))),
      extension('2.5.29.35', false, der.sequence(der.implicit(0, keyId(caSpki)))),
    ],
  });
  return {
    cert: pem(leafDer),
    key: leaf.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    caBundle: pem(caDer),
  };
}

const ECDSA_WITH_SHA256 = der.sequence(der.oid('1.2.840.10045.4.3.2'));

function certificate(c: { issuer: Buffer; subject: Buffer; spki: Buffer; days: number; signer: KeyObject; extensions: Buffer[] }): Buffer {
  const serial = randomBytes(16);
  serial[0] = (serial[0] as number) & 0x7f;
  // An hour of slack for clocks behind ours.
  const notBefore = new Date(Date.now() - 60 * 60 * 1000);
  const notAfter = new Date(Date.now() + c.days * 24 * 60 * 60 * 1000);
  const tbs = der.sequence(
    der.explicit(0, der.smallInteger(2)), // v3
    der.unsignedInteger(serial),
    ECDSA_WITH_SHA256,
    c.issuer,
    der.sequence(der.time(notBefore), der.time(notAfter)),
    c.subject,
    c.spki,
    der.explicit(3, der.sequence(...c.extensions)),
  );
  // node:crypto signs ECDSA as the DER SEQUENCE { r, s } that X.509 expects.
  const signature = sign('sha256', tbs, c.signer);
  return der.sequence(tbs, ECDSA_WITH_SHA256, der.bitString(signature));
}

function name(commonName: string): Buffer {
  return der.sequence(der.set(der.sequence(der.oid('2.5.4.3'), der.utf8String(commonName))));
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return critical ? der.sequence(der.oid(id), der.boolean(true), der.octetString(value)) : der.sequence(der.oid(id), der.octetString(value));
}

function keyId(spki: Buffer): Buffer {
  return createHash('sha1').update(spki).digest();
}

function ipBytes(ip: string): Buffer {
  if (isIP(ip) === 4) return Buffer.from(ip.split('.').map(Number));
  const [head = '', tail] = ip.split('::');
  const groups = (s: string): number[] => (s === '' ? [] : s.split(':').map((g) => parseInt(g, 16)));
  const h = groups(head);
  const t = tail === undefined ? [] : groups(tail);
  const all = [...h, ...new Array<number>(8 - h.length - t.length).fill(0), ...t];
  const out = Buffer.alloc(16);
  all.forEach((g, i) => out.writeUInt16BE(g, i * 2));
  return out;
}

function pem(derBytes: Buffer): string {
  const body = derBytes
    .toString('base64')
    .replace(/(.{64})/g, '$1\n')
    .replace(/\n$/, '');
  return `-----BEGIN CERTIFICATE-----\n${body}\n-----END CERTIFICATE-----\n`;
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}

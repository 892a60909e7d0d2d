import { execFileSync } from 'node:child_process';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CertificateError, generateSelfSignedCertificates, loadCertificates, serviceDnsNames } from '../../../controller/webhooks/certificates.js';
import * as der from '../../../controller/webhooks/der.js';

const hex = (b: Buffer): string => b.toString('hex');

describe('DER encoding', () => {
  it.each<[string, Buffer, string]>([
    ['a small integer', der.smallInteger(2), '020102'],
    ['an integer with the top bit set gets a 0 byte', der.unsignedInteger(Buffer.from([0x80])), '02020080'],
    ['leading zero bytes are dropped', der.unsignedInteger(Buffer.from([0, 0, 1])), '020101'],
    ['ecdsa-with-SHA256', der.oid('1.2.840.10045.4.3.2'), '06082a8648ce3d040302'],
    ['keyUsage digitalSignature|keyCertSign|cRLSign', der.namedBits([0, 5, 6]), '03020186'],
    ['keyUsage digitalSignature', der.namedBits([0]), '03020780'],
    ['UTCTime through 2049', der.time(new Date(Date.UTC(2049, 11, 31, 23, 59, 59))), hex(Buffer.concat([Buffer.from([0x17, 13]), Buffer.from('491231235959Z')]))],
    ['GeneralizedTime from 2050', der.time(new Date(Date.UTC(2050, 0, 1))), hex(Buffer.concat([Buffer.from([0x18, 15]), Buffer.from('20500101000000Z')]))],
    ['a long-form length', der.octetString(Buffer.alloc(200)).subarray(0, 3), '0481c8'],
  ])('%s', (_name, encoded, expected) => {
    expect(hex(encoded)).toBe(expected);
  });
});

describe('generateSelfSignedCertificates', () => {
  const tls = generateSelfSignedCertificates({ dnsNames: serviceDnsNames('kserve-webhook-server-service', 'kserve'), ipAddresses: ['10.96.0.10'], validityDays: 30 });
  const leaf = new X509Certificate(tls.cert);
  const ca = new X509Certificate(tls.caBundle);

  it('signs the serving certificate with a CA', () => {
    expect(ca.ca).toBe(true);
    expect(leaf.ca).toBe(false);
    expect(leaf.checkIssued(ca)).toBe(true);
    expect(leaf.verify(ca.publicKey)).toBe(true);
    expect(leaf.checkPrivateKey(createPrivateKey(tls.key))).toBe(true);
  });

  it('names loopback, localhost and the given names', () => {
    expect(leaf.checkHost('localhost')).toBe('localhost');
    expect(leaf.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(leaf.checkIP('::1')).toBe('::1');
    expect(leaf.checkIP('10.96.0.10')).toBe('10.96.0.10');
    expect(leaf.checkHost('kserve-webhook-server-service.kserve.svc')).toBeDefined();
    expect(leaf.checkHost('other.kserve.svc')).toBeUndefined();
  });

  it('is for TLS servers (extended key usage serverAuth)', () => {
    expect(leaf.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']);
  });

  it('is valid now, for the requested days', () => {
    const now = Date.now();
    expect(new Date(leaf.validFrom).getTime()).toBeLessThan(now);
    const days = (new Date(leaf.validTo).getTime() - now) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThan(30.1);
  });

  it('passes openssl verify as a TLS server certificate (when openssl is installed)', () => {
    let version: string;
    try {
      version = execFileSync('openssl', ['version'], { encoding: 'utf8' });
    } catch {
      return;
    }
    expect(version).toMatch(/SSL/);
    const dir = mkdtempSync(join(tmpdir(), 'webhook-cert-'));
    try {
      writeFileSync(join(dir, 'ca.pem'), tls.caBundle);
      writeFileSync(join(dir, 'leaf.pem'), tls.cert);
      const out = execFileSync('openssl', ['verify', '-CAfile', join(dir, 'ca.pem'), '-purpose', 'sslserver', join(dir, 'leaf.pem')], { encoding: 'utf8' });
      expect(out).toContain(': OK');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('rejects something that is not an IP address', () => {
    expect(() => generateSelfSignedCertificates({ ipAddresses: ['not-an-ip'] })).toThrow(CertificateError);
  });
});

describe('loadCertificates', () => {
  const dirs: string[] = [];
  const dir = (files: Record<string, string>): string => {
    const d = mkdtempSync(join(tmpdir(), 'webhook-certs-'));
    dirs.push(d);
    for (const [name, text] of Object.entries(files)) writeFileSync(join(d, name), text);
    return d;
  };
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const a = generateSelfSignedCertificates();
  const b = generateSelfSignedCertificates();

  it('reads tls.crt, tls.key and ca.crt', () => {
    expect(loadCertificates(dir({ 'tls.crt': a.cert, 'tls.key': a.key, 'ca.crt': a.caBundle }))).toEqual(a);
  });

  it('uses tls.crt as the CA bundle when there is no ca.crt', () => {
    expect(loadCertificates(dir({ 'tls.crt': a.cert, 'tls.key': a.key })).caBundle).toBe(a.cert);
  });

  it.each<[string, Record<string, string>, RegExp]>([
    ['a missing key', { 'tls.crt': 'x' }, /cannot read .*tls\.key/],
    ['a key of another certificate', { 'tls.crt': a.cert, 'tls.key': b.key }, /tls\.key in .* does not belong to tls\.crt/],
    ['a certificate that is not PEM', { 'tls.crt': 'garbage', 'tls.key': a.key }, /invalid certificate or key in/],
  ])('rejects %s', (_name, files, message) => {
    expect(() => loadCertificates(dir(files))).toThrow(message);
  });
});

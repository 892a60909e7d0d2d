/** The storage-initializer's error catalogue (storage-initializer/errors.ts): errors are thrown by name. */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type StorageError, type StorageErrorKind, errors, networkError, statusError } from '../../storage-initializer/errors.js';
import { ROOT } from '../helpers/server.js';

describe('the storage error catalogue', () => {
  it('is the only place a StorageError is constructed', () => {
    const dir = path.join(ROOT, 'storage-initializer');
    const offenders = (readdirSync(dir, { recursive: true }) as string[])
      .filter((f) => f.endsWith('.ts') && f !== 'errors.ts')
      .filter((f) => /new StorageError\(/.test(readFileSync(path.join(dir, f), 'utf8')));
    expect(offenders).toEqual([]);
  });

  it.each<[string, StorageError, StorageErrorKind, boolean, string]>([
    [
      'a setting that is not a number',
      errors.settingNotANumber('STORAGE_PART_SIZE', 1024, 'big'),
      'invalid',
      false,
      "STORAGE_PART_SIZE: invalid: STORAGE_PART_SIZE must be a number >= 1024, got 'big'",
    ],
    [
      'headers that are not an object',
      errors.headersNotAJsonObject('HEADERS', 'HEADERS (HDFS secret)'),
      'invalid',
      false,
      'HEADERS: invalid: HEADERS (HDFS secret) must be a JSON object of header names to values',
    ],
    ['a URI not of its form', errors.malformedUri('s3://', 's3://<bucket>/<path>'), 'invalid', false, 's3://: invalid: expected s3://<bucket>/<path>'],
    [
      'an unknown scheme',
      errors.unsupportedScheme('ftp', ['file', 's3'], 'ftp://h/m'),
      'unsupported_scheme',
      false,
      "ftp://h/m: unsupported storage scheme: 'ftp://' is not supported (supported: file://, s3:// and local paths)",
    ],
    ['a transient failure', errors.unreachable('s3://b/k: no body'), 'unreachable', true, '(no uri): unreachable: s3://b/k: no body'],
    ['a cancelled request', errors.unreachable('k: cancelled', { retryable: false }), 'unreachable', false, '(no uri): unreachable: k: cancelled'],
    [
      'a file that cannot be read back',
      errors.unverifiable('m/1/model.onnx', new Error('EIO')),
      'checksum_mismatch',
      false,
      '(no uri): checksum mismatch: m/1/model.onnx: could not read it back to check it (EIO)',
    ],
    [
      'a broken archive',
      errors.badArchive('gzip-compressed tar', 'unexpected end'),
      'invalid',
      false,
      '(no uri): invalid: not a valid gzip-compressed tar archive: unexpected end',
    ],
    ['HTTP 404', statusError(404, 'GET https://h/m'), 'not_found', false, '(no uri): not found: GET https://h/m does not exist (HTTP 404)'],
    ['HTTP 503', statusError(503, 'GET https://h/m'), 'unreachable', true, '(no uri): unreachable: GET https://h/m answered HTTP 503'],
    [
      'a reset',
      networkError(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }), 'GET https://h/m'),
      'unreachable',
      true,
      '(no uri): unreachable: GET https://h/m: read ECONNRESET',
    ],
  ])('%s', (_name, err, kind, retryable, line) => {
    expect({ kind: err.kind, retryable: err.retryable, line: err.line() }).toEqual({ kind, retryable, line });
  });
});

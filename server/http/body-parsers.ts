/**
 * Every request body is read as one Buffer, whatever its content type: V2 infer bodies may
 * be JSON or JSON + binary tensors (tritonclient sends the binary form without a
 * content type), and V1 bodies go through the codec's own JSON parsing so errors keep the
 * anchor's messages. Bodies allocated for one request alone are marked detachable so a
 * backend can move them to its thread without copying.
 */
import type { FastifyInstance } from 'fastify';
import { markDetachable } from '../../protocols/buffer-ownership.js';

export function registerBodyParsers(app: FastifyInstance, bodyLimit: number): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit }, (_req, body, done) => {
    const buf = body as Buffer;
    // Node's Buffer pool shares small slabs between buffers: only a body that is its own
    // allocation may be detached.
    if (buf.byteOffset === 0 && buf.byteLength === buf.buffer.byteLength) markDetachable(buf.buffer);
    done(null, buf);
  });
}

export function bodyBytes(body: unknown): Buffer {
  return Buffer.isBuffer(body) ? body : Buffer.alloc(0);
}

/**
 * Every request body is read as one Buffer, whatever its content type: V2 infer bodies may
 * be JSON or JSON + binary tensors (tritonclient sends the binary form without a
 * content type), and V1 bodies go through the codec's own JSON parsing so errors keep the
 * anchor's messages. Bodies allocated for one request alone are marked detachable so a
 * backend can move them to its thread without copying.
 */
import type { FastifyInstance } from 'fastify';
import { markDetachable } from '../../protocols/buffer-ownership.js';
import { errors } from '../../protocols/errors.js';
import { HEADER_LENGTH_HEADER } from '../../protocols/v2/rest-request.js';
import { STRUCTURED_CONTENT_TYPE, acceptBinaryEvent, acceptStructuredEvent, isBinaryCloudEvent } from './cloud-events.js';

/**
 * Bytes of a body that are JSON: the Inference-Header-Content-Length prefix of a binary
 * request, the whole body otherwise (a malformed header counts as the whole body; the
 * codec refuses it with its own message).
 */
function jsonBytes(header: string | string[] | undefined, bodyLength: number): number {
  const raw = Array.isArray(header) ? header[0] : header;
  const n = raw === undefined ? Number.NaN : Number(raw.trim());
  return Number.isSafeInteger(n) && n >= 0 && n <= bodyLength ? n : bodyLength;
}

/**
 * `maxJsonBytes` bounds the JSON part: JSON.parse holds the event loop (and every other
 * request, probes included) for as long as it runs, and builds objects many times the
 * text's size, so a JSON part past it is refused (413) before it is parsed.
 */
export function registerBodyParsers(app: FastifyInstance, bodyLimit: number, maxJsonBytes: number): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit }, (req, body, done) => {
    const buf = body as Buffer;
    const json = jsonBytes(req.headers[HEADER_LENGTH_HEADER], buf.byteLength);
    if (json > maxJsonBytes) {
      done(
        errors.limitExceeded(
          `The JSON part of the request is ${json} bytes, larger than the limit of ${maxJsonBytes} bytes (--rest_max_json_bytes); send large tensors with the binary data extension`,
        ),
        undefined,
      );
      return;
    }
    // A binary-mode CloudEvent's body is its data: only its attributes are checked here.
    if (isBinaryCloudEvent(req.headers)) {
      try {
        acceptBinaryEvent(req);
      } catch (e) {
        done(e as Error, undefined);
        return;
      }
    }
    // Node's Buffer pool shares small slabs between buffers: only a body that is its own
    // allocation may be detached.
    if (buf.byteOffset === 0 && buf.byteLength === buf.buffer.byteLength) markDetachable(buf.buffer);
    done(null, buf);
  });
  // A structured-mode CloudEvent is JSON as a whole: bounded like any JSON body, then its
  // data becomes the body the routes decode.
  app.addContentTypeParser(STRUCTURED_CONTENT_TYPE, { parseAs: 'buffer', bodyLimit }, (req, body, done) => {
    const buf = body as Buffer;
    if (buf.byteLength > maxJsonBytes) {
      done(errors.limitExceeded(`The CloudEvent is ${buf.byteLength} bytes of JSON, larger than the limit of ${maxJsonBytes} bytes (--rest_max_json_bytes)`), undefined);
      return;
    }
    try {
      done(null, acceptStructuredEvent(req, buf));
    } catch (e) {
      done(e as Error, undefined);
    }
  });
}

export function bodyBytes(body: unknown): Buffer {
  return Buffer.isBuffer(body) ? body : Buffer.alloc(0);
}

/**
 * One budget for the REST request bytes the server holds at once: every body counts from
 * its first byte until its response is done. Bodies are buffered whole before a route runs,
 * so without it a few clients that send most of a large body and stall hold that memory
 * until the request timeout (8 × 200 MiB took RSS to 1.8 GB). A chunk that would pass the
 * budget fails its request with 503 ServerBusy; bodies within it are unaffected.
 * Bodies that declare at most SMALL bytes are not counted (no stream in the hot path of
 * small inferences): --max_connections of them hold at most 4096 × 64 KiB = 256 MiB.
 */
import { Transform } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { errors } from '../../protocols/errors.js';
import { ByteBudget } from '../byte-budget.js';
import type { LimitLog } from '../limit-log.js';

const SMALL = 64 * 1024;

/** Counts the bodies of `app`'s requests against one budget of `maxBytes`; returns it (none when 0). */
export function limitBodyBytesInFlight(app: FastifyInstance, maxBytes: number, log: LimitLog): ByteBudget | undefined {
  if (maxBytes <= 0) return undefined;
  const budget = new ByteBudget(maxBytes);
  app.addHook('preParsing', (request, _reply, payload, done) => {
    const declared = Number(request.headers['content-length']);
    if (declared <= SMALL) {
      done(null, payload);
      return;
    }
    const account = budget.open();
    // The bytes stay in memory until the response is sent (the route reads views on them).
    request.raw.once('close', account.release);
    _reply.raw.once('close', account.release);
    const counted = new Transform({
      transform(chunk: Buffer, _enc, cb) {
        if (!account.take(chunk.byteLength)) {
          log.acted(
            'rest_max_inflight_body_bytes',
            { limit: '--rest_max_inflight_body_bytes', max: maxBytes, held: budget.held, transport: 'rest' },
            'in-flight request body bytes at their limit: a request was answered 503',
          );
          cb(errors.serverBusy(`the server already holds ${budget.held} bytes of request bodies (limit --rest_max_inflight_body_bytes ${maxBytes})`));
          return;
        }
        cb(null, chunk);
      },
    });
    // fastify's body limit reads the received length from the stream it is given.
    payload.pipe(counted);
    payload.on('error', (e) => counted.destroy(e));
    done(null, counted);
  });
  return budget;
}

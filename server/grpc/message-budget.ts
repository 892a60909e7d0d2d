/**
 * One budget for the gRPC request bytes the server holds at once, over every connection:
 * a call's bytes count from its first DATA frame until the call ends. grpc-js buffers a
 * message whole before the handler runs, so without it clients that send most of a large
 * message and stall hold that memory for as long as they like (200 streams × 7 MB took RSS
 * to 1.57 GB). A call whose next chunk would pass the budget is reset with
 * ENHANCE_YOUR_CALM, which gRPC clients report as RESOURCE_EXHAUSTED; calls within it are
 * unaffected. The REST side has the same budget (server/http/body-budget.ts).
 */
import { constants, type Http2Server, type ServerHttp2Stream } from 'node:http2';
import type { LimitLog } from '../limit-log.js';

export interface MessageBudget {
  /** Counts the request bytes of every stream on `h2` against this budget. */
  watch(h2: Http2Server): void;
  /** Bytes held now (tests, metrics). */
  readonly held: number;
}

export function messageBudget(maxBytes: number, log: LimitLog): MessageBudget {
  let held = 0;
  const onStream = (stream: ServerHttp2Stream): void => {
    let mine = 0;
    const onData = (chunk: Buffer): void => {
      if (held + chunk.byteLength > maxBytes) {
        log.acted(
          'grpc_max_inflight_message_bytes',
          { limit: '--grpc_max_inflight_message_bytes', max: maxBytes, held, transport: 'grpc' },
          'in-flight request bytes at their limit: a call was reset (RESOURCE_EXHAUSTED)',
        );
        stream.off('data', onData);
        stream.close(constants.NGHTTP2_ENHANCE_YOUR_CALM);
        return;
      }
      held += chunk.byteLength;
      mine += chunk.byteLength;
    };
    // grpc-js reads the stream itself; a second 'data' listener sees the same chunks and
    // leaves its flow control alone (it pauses explicitly, which a listener does not undo).
    stream.on('data', onData);
    stream.once('close', () => {
      held -= mine;
      mine = 0;
    });
  };
  return {
    watch(h2) {
      if (maxBytes > 0) h2.on('stream', onStream);
    },
    get held() {
      return held;
    },
  };
}

/**
 * The gRPC connection limit and receive deadline (server/connection-set.ts,
 * server/stall-watch.ts); grpc-js has neither. Connections (HTTP/2 sessions) count from
 * accept; past --grpc_max_connections the oldest with no call is closed, else the oldest
 * whose calls are all still receiving their request (each answered UNAVAILABLE first), else
 * the new one is refused. A call whose request message receives no byte for
 * --receive_timeout_seconds, or is not received whole within --request_timeout_seconds, is
 * answered DEADLINE_EXCEEDED and reset; its connection stays. HTTP/2 PINGs keep a
 * connection alive but are no bytes of a call. A call whose response the client leaves
 * unread (no flow-control window) for --send_timeout_seconds is reset (CANCELLED). Each action is logged (server/limit-log.ts).
 */
import { type Http2Server, type Http2Session, type ServerHttp2Stream, constants } from 'node:http2';
import { errors } from '../../protocols/errors.js';
import { ConnectionSet } from '../connection-set.js';
import type { LimitLog } from '../limit-log.js';
import type { ServerLimits } from '../limits.js';
import { StallWatch } from '../stall-watch.js';
import { endCall } from './call-status.js';

export interface SessionLimits extends Pick<ServerLimits, 'grpcMaxConnections' | 'receiveTimeoutMs' | 'requestTimeoutMs' | 'sendTimeoutMs'> {
  /** Paths of methods whose request is a stream (reflection): open-ended by design, never expired. */
  readonly streamingRequests: ReadonlySet<string>;
}

/** The client has sent END_STREAM: the request is whole (or the stream is gone). */
function received(stream: ServerHttp2Stream): boolean {
  return stream.closed || stream.destroyed || stream.state.remoteClose === 1;
}

export function limitSessions(h2: Http2Server, limits: SessionLimits, log: LimitLog): void {
  const calls = new Map<Http2Session, Set<ServerHttp2Stream>>();
  // Bytes received per watched call (those with a unary request).
  const bytes = new Map<ServerHttp2Stream, number>();
  const busy = errors.serverBusy(`the server holds its maximum of ${limits.grpcMaxConnections} connections (--grpc_max_connections)`);
  const sessions: ConnectionSet<Http2Session> = new ConnectionSet<Http2Session>({
    max: limits.grpcMaxConnections,
    receiving: (s) => [...(calls.get(s) ?? [])].every((stream) => !received(stream)),
    close: (s, why) => {
      if (why !== 'receiving') {
        s.destroy();
        return;
      }
      for (const stream of calls.get(s) ?? []) endCall(stream, busy);
      // GOAWAY; the session ends once the calls just answered are closed.
      s.close();
    },
    acted: (what) =>
      log.acted(
        `grpc_max_connections:${what}`,
        { limit: '--grpc_max_connections', max: limits.grpcMaxConnections, closed: what, transport: 'grpc' },
        what === 'refused'
          ? 'connection limit reached: every connection has a call being served; a new connection was refused'
          : `connection limit reached: closed the oldest ${what === 'idle' ? 'connection without calls' : 'connection whose calls are still receiving their request (UNAVAILABLE)'} to admit a new one`,
      ),
  });
  const stalled = errors.requestTimeout(`the request message was not received in time: no byte for ${limits.receiveTimeoutMs / 1000} s (--receive_timeout_seconds)`);
  const late = errors.requestTimeout(`the request message was not received within ${limits.requestTimeoutMs / 1000} s (--request_timeout_seconds)`);
  const receives = new StallWatch<ServerHttp2Stream>({
    stallMs: limits.receiveTimeoutMs,
    deadlineMs: limits.requestTimeoutMs,
    candidates: () => bytes.keys(),
    waiting: (stream) => !received(stream),
    progress: (stream) => bytes.get(stream) ?? 0,
    expire: (stream, why) => {
      log.acted(
        `receive_timeout:${why}`,
        why === 'stalled'
          ? { limit: '--receive_timeout_seconds', seconds: limits.receiveTimeoutMs / 1000, transport: 'grpc' }
          : { limit: '--request_timeout_seconds', seconds: limits.requestTimeoutMs / 1000, transport: 'grpc' },
        'request message not received in time: answered DEADLINE_EXCEEDED and reset the call',
      );
      endCall(stream, why === 'stalled' ? stalled : late);
    },
  });
  // A response the client grants no flow-control window for stays queued in this process.
  const sends = new StallWatch<ServerHttp2Stream>({
    stallMs: limits.sendTimeoutMs,
    candidates: function* () {
      for (const streams of calls.values()) yield* streams;
    },
    waiting: (stream) => !stream.destroyed && stream.writableLength > 0,
    // Queued bytes go down as the client reads and up as the handler writes: either moves.
    progress: (stream) => stream.writableLength,
    expire: (stream) => {
      log.acted('send_timeout', { limit: '--send_timeout_seconds', seconds: limits.sendTimeoutMs / 1000, transport: 'grpc' }, 'response not read by the client: reset the call');
      stream.close(constants.NGHTTP2_CANCEL);
    },
  });

  h2.on('session', (session: Http2Session) => {
    if (!sessions.admit(session)) return;
    calls.set(session, new Set());
    session.once('close', () => {
      sessions.closed(session);
      calls.delete(session);
    });
  });
  h2.on('stream', (stream: ServerHttp2Stream, headers) => {
    const session = stream.session;
    const open = session === undefined ? undefined : calls.get(session);
    // A refused connection is closing: its calls are not counted.
    if (session === undefined || open === undefined) return;
    sessions.begin(session);
    open.add(stream);
    if (!limits.streamingRequests.has(String(headers[':path']))) {
      bytes.set(stream, 0);
      // grpc-js reads the stream itself; a second 'data' listener sees the same chunks and
      // leaves its flow control alone (it pauses explicitly, which a listener does not undo).
      stream.on('data', (chunk: Buffer) => bytes.set(stream, (bytes.get(stream) ?? 0) + chunk.byteLength));
      receives.wake();
    }
    sends.wake();
    stream.once('close', () => {
      sessions.end(session);
      calls.get(session)?.delete(stream);
      bytes.delete(stream);
    });
  });
  h2.once('close', () => {
    receives.stop();
    sends.stop();
  });
}

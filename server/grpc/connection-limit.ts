/**
 * Bounds the gRPC connections (HTTP/2 sessions) open at once with the shared policy
 * (server/connection-set.ts): a new connection beyond the bound closes the oldest one with
 * no call in progress, or is refused when every one is busy. grpc-js has no such option;
 * without it, stalled uploads on many connections could hold unbounded memory (each
 * connection holds at most --grpc_max_concurrent_streams × the largest message).
 */
import type { Http2Server, Http2Session, ServerHttp2Stream } from 'node:http2';
import { ConnectionSet } from '../connection-set.js';

export function limitSessions(h2: Http2Server, max: number): void {
  const sessions = new ConnectionSet<Http2Session>(max);
  h2.on('session', (session: Http2Session) => {
    if (!sessions.admit(session)) return;
    session.once('close', () => sessions.closed(session));
  });
  h2.on('stream', (stream: ServerHttp2Stream) => {
    const session = stream.session;
    if (session === undefined) return;
    sessions.begin(session);
    stream.once('close', () => sessions.end(session));
  });
}

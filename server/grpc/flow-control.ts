/**
 * HTTP/2 receive windows for the gRPC server. Node's defaults (64 KiB per stream and per
 * connection) make a client stop every 64 KiB until the server's event loop sends a
 * WINDOW_UPDATE, which throttles raw tensor uploads well below what the link carries:
 * a 588 KiB image took about 1.6× longer than with these windows (benchmarks/grpc).
 * grpc-js has no server option for them, so they are set on its http2 server settings
 * (before bind) and on each new session (after bind). Both are feature-detected: if a
 * grpc-js release moves these internals, the defaults stay and nothing else changes.
 * newHttp2Servers is also how the connection limit (connection-limit.ts) reaches sessions.
 */
import type { Http2Server, ServerHttp2Session, Settings } from 'node:http2';
import type { Server } from '@grpc/grpc-js';

const MiB = 1024 * 1024;
/** Bytes a client may send on one call before it needs a window update. */
export const STREAM_WINDOW = 4 * MiB;
/** Bytes a client may have in flight across all calls on one connection. */
export const CONNECTION_WINDOW = 16 * MiB;
/**
 * The largest DATA frame the server accepts (HTTP/2's default is 16 KiB). Clients that size
 * frames by it (grpcio, so tritonclient) send a 588 KiB tensor in one frame instead of 37,
 * and each frame is a callback and a chunk on the server's side.
 */
export const MAX_FRAME_SIZE = 1 * MiB;

interface GrpcServerInternals {
  commonServerOptions?: { settings?: Settings };
  http2Servers?: Map<Http2Server, unknown>;
}

const seen = new WeakSet<Http2Server>();

/**
 * The node:http2 servers grpc-js created for its bound ports that have not been returned
 * before: call after each bind to set up per-session behaviour once per server. Empty if a
 * grpc-js release moves this internal.
 */
export function newHttp2Servers(server: Server): Http2Server[] {
  const servers = (server as unknown as GrpcServerInternals).http2Servers;
  if (!(servers instanceof Map)) return [];
  const fresh = [...servers.keys()].filter((h2) => !seen.has(h2));
  for (const h2 of fresh) seen.add(h2);
  return fresh;
}

/** Call before bindAsync: the per-stream window and frame size every new connection advertises. */
export function widenReceiveWindows(server: Server): void {
  const common = (server as unknown as GrpcServerInternals).commonServerOptions;
  if (common === undefined || typeof common !== 'object') return;
  common.settings = { ...common.settings, initialWindowSize: STREAM_WINDOW, maxFrameSize: MAX_FRAME_SIZE };
}

/** The connection-level window of every new session on `h2` (see newHttp2Servers). */
export function widenSessionWindows(h2: Http2Server): void {
  h2.on('session', (session: ServerHttp2Session) => {
    try {
      session.setLocalWindowSize(CONNECTION_WINDOW);
    } catch {
      // A session that is already closing keeps its default window.
    }
  });
}

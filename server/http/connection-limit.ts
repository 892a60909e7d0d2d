/**
 * The REST connection limit and receive deadline (server/connection-set.ts,
 * server/stall-watch.ts): connections count from accept (over TLS, the TCP connection before
 * its handshake); past --max_connections the oldest idle connection is closed, else the
 * oldest whose request body is still being received (answered 503 first), else the new one
 * is refused. A request whose body receives no byte for --receive_timeout_seconds is
 * answered 408 and its connection closed; one whose response the client leaves unread for
 * --send_timeout_seconds loses its connection. Each action is logged (server/limit-log.ts).
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Socket } from 'node:net';
import { Server as TlsServer, type TLSSocket } from 'node:tls';
import { errors } from '../../protocols/errors.js';
import { ConnectionSet } from '../connection-set.js';
import type { LimitLog } from '../limit-log.js';
import type { ServerLimits } from '../limits.js';
import { StallWatch } from '../stall-watch.js';
import { answerAndClose } from './client-errors.js';

/**
 * The TCP connection under a request's socket: over TLS the TLSSocket wraps the socket
 * 'connection' handed out, as `_parent` (Node's TLS wrap has always set it).
 */
function tcpOf(socket: Socket): Socket {
  return (socket as Socket & { _parent?: Socket })._parent ?? socket;
}

export function limitConnections(server: Server, limits: Pick<ServerLimits, 'maxConnections' | 'receiveTimeoutMs' | 'sendTimeoutMs'>, log: LimitLog): void {
  const tls = server instanceof TlsServer;
  const transport = tls ? 'https' : 'rest';
  const timedOut = (flag: string, ms: number, msg: string) => log.acted(flag, { limit: flag, seconds: ms / 1000, transport }, msg);
  // The request in progress on a connection (the latest, if pipelined) and, over TLS, the socket it is read from.
  const current = new Map<Socket, IncomingMessage>();
  const secure = new WeakMap<Socket, TLSSocket>();
  const busy = errors.serverBusy(`the server holds its maximum of ${limits.maxConnections} connections (--max_connections)`);
  const connections: ConnectionSet<Socket> = new ConnectionSet<Socket>({
    max: limits.maxConnections,
    receiving: (c) => connections.inProgress(c) === 1 && current.get(c)?.complete === false,
    close: (c, why) => {
      const req = current.get(c);
      if (why === 'receiving' && req !== undefined) answerAndClose(req.socket, busy.httpStatus, busy.message, 'Retry-After: 1\r\n');
      else (secure.get(c) ?? c).destroy();
    },
    acted: (what) =>
      log.acted(
        `max_connections:${what}`,
        { limit: '--max_connections', max: limits.maxConnections, closed: what, transport },
        what === 'refused'
          ? 'connection limit reached: every connection has a request being served; a new connection was refused'
          : `connection limit reached: closed the oldest ${what === 'idle' ? 'idle connection' : 'connection whose request body is still being received (503)'} to admit a new one`,
      ),
  });
  const timeout = errors.requestTimeout(`the request body was not received in time: no byte for ${limits.receiveTimeoutMs / 1000} s (--receive_timeout_seconds)`);
  const receives = new StallWatch<IncomingMessage>({
    stallMs: limits.receiveTimeoutMs,
    candidates: () => current.values(),
    waiting: (req) => !req.complete,
    progress: (req) => req.socket.bytesRead,
    expire: (req) => {
      timedOut('--receive_timeout_seconds', limits.receiveTimeoutMs, 'request body stalled: answered 408 and closed the connection');
      answerAndClose(req.socket, timeout.httpStatus, timeout.message);
    },
  });
  // A response the client does not read stays queued in this process (the kernel's buffers
  // are full): it holds its connection and its bytes until the client reads or goes.
  const sends = new StallWatch<IncomingMessage>({
    stallMs: limits.sendTimeoutMs,
    candidates: () => current.values(),
    waiting: (req) => req.complete && req.socket.writableLength > 0,
    progress: (req) => req.socket.bytesWritten,
    expire: (req) => {
      timedOut('--send_timeout_seconds', limits.sendTimeoutMs, 'response not read by the client: closed the connection');
      req.socket.destroy();
    },
  });

  server.on('connection', (socket: Socket) => {
    if (!connections.admit(socket)) return;
    socket.once('close', () => {
      connections.closed(socket);
      current.delete(socket);
    });
  });
  if (tls) server.on('secureConnection', (socket: TLSSocket) => secure.set(tcpOf(socket), socket));
  // Node's own closeIdleConnections (server.close() and fastify's drain call it) treats a
  // connection as idle once its response has been end()ed, even while that response is
  // still being written: a large response in flight at shutdown was cut off mid-body. Here
  // idle means no request whose response is still open; the others close after it.
  server.closeIdleConnections = () => connections.closeIdle();
  server.on('request', (req: IncomingMessage, res) => {
    const c = tcpOf(req.socket);
    connections.begin(c);
    current.set(c, req);
    receives.wake();
    sends.wake();
    res.once('close', () => {
      connections.end(c);
      if (current.get(c) === req) current.delete(c);
    });
  });
  server.once('close', () => {
    receives.stop();
    sends.stop();
  });
}

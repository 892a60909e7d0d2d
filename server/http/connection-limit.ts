/**
 * Bounds the REST connections open at once with the shared policy (server/connection-set.ts):
 * a new connection beyond the bound closes the oldest one with no request in progress.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { Server as TlsServer } from 'node:tls';
import { ConnectionSet } from '../connection-set.js';

export function limitConnections(server: Server, max: number): void {
  const connections = new ConnectionSet<Socket>(max);
  // Over TLS a request's socket is the TLSSocket, which only 'secureConnection' hands out.
  const accepted = server instanceof TlsServer ? 'secureConnection' : 'connection';
  server.on(accepted, (socket: Socket) => {
    if (!connections.admit(socket)) return;
    socket.once('close', () => connections.closed(socket));
  });
  // Node's own closeIdleConnections (server.close() and fastify's drain call it) treats a
  // connection as idle once its response has been end()ed, even while that response is
  // still being written: a large response in flight at shutdown was cut off mid-body. Here
  // idle means no request whose response is still open; the others close after it.
  server.closeIdleConnections = () => connections.closeIdle();
  server.on('request', (req, res) => {
    const socket = req.socket;
    connections.begin(socket);
    res.once('close', () => connections.end(socket));
  });
}

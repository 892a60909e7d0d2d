/**
 * Bounds the REST connections open at once. When a new connection would pass the bound,
 * the oldest connection with no request in progress (one still sending its headers, or an
 * idle keep-alive one) is closed to make room; only when every connection is busy with a
 * request is the new one refused. So thousands of header-only or idle connections can
 * neither exhaust the process's file descriptors nor lock out the kubelet's probes, while
 * requests already being served are never cut, at shutdown either.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

export function limitConnections(server: Server, max: number): void {
  // Insertion order is age order: the first idle one found is the oldest.
  const open = new Set<Socket>();
  const busy = new Map<Socket, number>();
  server.on('connection', (socket: Socket) => {
    if (open.size >= max) {
      let victim: Socket | undefined;
      for (const s of open) {
        if (!busy.has(s)) {
          victim = s;
          break;
        }
      }
      if (victim === undefined) {
        socket.destroy();
        return;
      }
      open.delete(victim);
      victim.destroy();
    }
    open.add(socket);
    socket.once('close', () => {
      open.delete(socket);
      busy.delete(socket);
    });
  });
  // Node's own closeIdleConnections (server.close() and fastify's drain call it) treats a
  // connection as idle once its response has been end()ed, even while that response is
  // still being written: a large response in flight at shutdown was cut off mid-body. Here
  // idle means no request whose response is still open; the others close after it.
  server.closeIdleConnections = () => {
    for (const s of open) if (!busy.has(s)) s.destroy();
  };
  server.on('request', (req, res) => {
    const socket = req.socket;
    busy.set(socket, (busy.get(socket) ?? 0) + 1);
    res.once('close', () => {
      const n = (busy.get(socket) ?? 1) - 1;
      if (n <= 0) busy.delete(socket);
      else busy.set(socket, n);
    });
  });
}

/**
 * Errors Node's HTTP parser and timers raise before a request reaches fastify (a malformed
 * request line, a bad Content-Length or chunk, headers past --max_header_bytes, a request
 * not received within its timeout), answered in the project's `{"error": "..."}` shape with
 * their status (400, 431, 408), then the connection is closed, as Node does.
 */
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { LimitLog } from '../limit-log.js';
import type { ServerLimits } from '../limits.js';

interface ClientError {
  readonly status: number;
  readonly message: string;
}

function classify(err: NodeJS.ErrnoException, limits: ServerLimits): ClientError {
  switch (err.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return {
        status: 408,
        message: `Request not received in time: headers within ${limits.headersTimeoutMs / 1000} s, the whole request within ${limits.requestTimeoutMs / 1000} s`,
      };
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, message: `Request headers are larger than the limit of ${limits.maxHeaderBytes} bytes` };
    default:
      // llhttp's reason, e.g. "Invalid character in Content-Length": it names the fault, never the data.
      return { status: 400, message: `Malformed HTTP request: ${String((err as { reason?: string }).reason ?? err.code ?? 'parse error')}` };
  }
}

/**
 * Answers `status` with `{"error": message}` on `socket` and closes it: for what happens
 * outside fastify (the parser's errors, the connection limit, the receive deadline). A
 * response already under way on the connection cannot be followed by another one: then it
 * is only closed.
 */
export function answerAndClose(socket: Socket, status: number, message: string, headers = ''): void {
  if (socket.destroyed) return;
  const body = JSON.stringify({ error: message });
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && inFlight?.headersSent !== true) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${headers}Connection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

export function clientErrorHandler(limits: ServerLimits, log: LimitLog): (err: NodeJS.ErrnoException, socket: Socket) => void {
  return (err, socket) => {
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    const { status, message } = classify(err, limits);
    if (status === 408) {
      log.acted(
        'request_timeout',
        {
          limit: '--headers_timeout_seconds/--request_timeout_seconds',
          headersSeconds: limits.headersTimeoutMs / 1000,
          requestSeconds: limits.requestTimeoutMs / 1000,
          transport: 'rest',
        },
        'request not received in time: answered 408 and closed the connection',
      );
    }
    answerAndClose(socket, status, message);
  };
}

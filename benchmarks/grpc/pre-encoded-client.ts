/**
 * ModelInfer as a load generator sends it: requests serialised and framed once up front,
 * written with node:http2 (the gRPC wire protocol: POST to
 * /inference.GRPCInferenceService/ModelInfer, a length-prefixed message, the status in the
 * trailers), responses left as bytes. This costs the client several times less CPU per call
 * than a grpc-js channel, whose per-call machinery (filters, call streams, deadlines)
 * otherwise saturates the load generator's core before the server's: the point of a
 * benchmark is to measure the server's path.
 *
 * Like h2load's clients × streams or ghz's --connections, load is spread over several
 * connections with at most `CALLS_PER_CONNECTION` calls in flight on each.
 *
 * Each session lifts Node's per-session memory cap (`maxSessionMemory`, 10 MB by default) as
 * grpc-js does for its own channels. With the default, a client keeping 32 or more 588 KiB
 * uploads in flight on one connection runs out of session memory while those bodies wait to
 * be sent, and its own session then resets the streams whose answers arrive with
 * ENHANCE_YOUR_CALM and finally drops the connection. The server never reset one: see
 * test/grpc/one-connection.test.ts and benchmarks/RESULTS.md.
 */
import http2 from 'node:http2';
import type { ModelInferRequestMessage } from '../../protocols/grpc/messages.js';
import { INFERENCE_SERVICE } from '../../protocols/grpc/proto.js';
import { encodeModelInferRequest } from '../../protocols/grpc/wire/encode-infer.js';

export const CALLS_PER_CONNECTION = 16;

/** Receive windows large enough that responses never wait for window updates. */
const WINDOW = 16 * 2 ** 20;
/** Session memory in MB: unbounded, as grpc-js sets it (the caller bounds calls in flight). */
export const CLIENT_SESSION_MEMORY_MB = Number.MAX_SAFE_INTEGER;

const MODEL_INFER_PATH = `/${INFERENCE_SERVICE}/ModelInfer`;

/** A ModelInferRequest serialised (by the wire codec the server uses) and framed (compression flag, length, message). */
export function encodeInfer(request: ModelInferRequestMessage): Buffer {
  const message = encodeModelInferRequest(request);
  const framed = Buffer.alloc(5 + message.byteLength);
  framed.writeUInt32BE(message.byteLength, 1);
  message.copy(framed, 5);
  return framed;
}

export interface InferConnections {
  /** Sends a framed request; resolves with the response message, rejects unless grpc-status is 0. */
  call(framed: Buffer): Promise<Buffer>;
  close(): void;
}

const INFER_HEADERS: http2.OutgoingHttpHeaders = Object.freeze({
  ':method': 'POST',
  ':path': MODEL_INFER_PATH,
  'content-type': 'application/grpc',
  te: 'trailers',
});

/** One ModelInfer call on `session`: resolves with the response message, rejects unless grpc-status is 0. */
export function inferOn(session: http2.ClientHttp2Session, framed: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const stream = session.request(INFER_HEADERS);
    const chunks: Buffer[] = [];
    let status: string | undefined;
    let detail = '';
    const onStatus = (h: http2.IncomingHttpHeaders) => {
      if (h['grpc-status'] !== undefined) {
        status = String(h['grpc-status']);
        detail = decodeURIComponent(String(h['grpc-message'] ?? ''));
      }
    };
    // A trailers-only answer (an error) carries the status in the headers.
    stream.on('response', onStatus);
    stream.on('trailers', onStatus);
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('error', reject);
    stream.on('close', () => {
      if (status === '0') resolve(Buffer.concat(chunks).subarray(5));
      else reject(new Error(`grpc-status ${status ?? 'missing'}${detail ? `: ${detail}` : ''}`));
    });
    stream.end(framed);
  });
}

/** `connections` HTTP/2 connections to `address`; each call goes to the one with the fewest calls in flight. */
export function inferConnections(address: string, connections = 1): InferConnections {
  const pool = Array.from({ length: connections }, () => {
    const session = http2.connect(`http://${address}`, {
      settings: { initialWindowSize: WINDOW },
      maxSessionMemory: CLIENT_SESSION_MEMORY_MB,
    });
    session.on('connect', () => session.setLocalWindowSize(WINDOW));
    // A failed connection fails each call instead.
    session.on('error', () => {});
    return { session, inFlight: 0 };
  });
  return {
    call: async (framed) => {
      const c = pool.reduce((a, b) => (b.inFlight < a.inFlight ? b : a));
      c.inFlight++;
      try {
        return await inferOn(c.session, framed);
      } finally {
        c.inFlight--;
      }
    },
    close: () => pool.forEach((c) => c.session.close()),
  };
}

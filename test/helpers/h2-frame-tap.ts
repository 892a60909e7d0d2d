/**
 * A loopback TCP relay that reads the HTTP/2 frames passing through it, so a test can tell
 * which side of a connection sent a RST_STREAM or GOAWAY. Both peers' streams see nothing
 * but the relay's added hop: bytes are forwarded unchanged as they arrive.
 *
 * Frames are parsed per direction from the 9-byte frame header (RFC 9113 §4.1); the
 * client-to-server direction first skips the 24-byte connection preface.
 */
import net from 'node:net';

const PREFACE_BYTES = 24;
const FRAME_HEADER_BYTES = 9;
const RST_STREAM = 0x3;
const GOAWAY = 0x7;

export interface DirectionCounts {
  /** RST_STREAM frames by error code (e.g. 11 = ENHANCE_YOUR_CALM). */
  resets: Map<number, number>;
  /** GOAWAY frames by error code. */
  goaways: Map<number, number>;
  frames: number;
}

export interface FrameTap {
  /** host:port to connect to instead of the target. */
  readonly address: string;
  readonly clientToServer: DirectionCounts;
  readonly serverToClient: DirectionCounts;
  close(): Promise<void>;
}

const emptyCounts = (): DirectionCounts => ({ resets: new Map(), goaways: new Map(), frames: 0 });

/** Counts the frames of one direction; keeps only an unfinished frame header/payload between chunks. */
function frameCounter(counts: DirectionCounts, skip: number): (chunk: Buffer) => void {
  let pending = Buffer.alloc(0);
  let toSkip = skip;
  return (chunk) => {
    let buf = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    if (toSkip > 0) {
      const n = Math.min(toSkip, buf.length);
      buf = buf.subarray(n);
      toSkip -= n;
    }
    let at = 0;
    while (buf.length - at >= FRAME_HEADER_BYTES) {
      const length = buf.readUIntBE(at, 3);
      const type = buf[at + 3] as number;
      // RST_STREAM's error code is its payload; GOAWAY's follows the last stream id.
      const needed = type === RST_STREAM ? 4 : type === GOAWAY ? 8 : 0;
      if (buf.length - at < FRAME_HEADER_BYTES + needed) break;
      if (type === RST_STREAM) bump(counts.resets, buf.readUInt32BE(at + FRAME_HEADER_BYTES));
      if (type === GOAWAY) bump(counts.goaways, buf.readUInt32BE(at + FRAME_HEADER_BYTES + 4));
      counts.frames++;
      const end = at + FRAME_HEADER_BYTES + length;
      if (end > buf.length) {
        // Skip the rest of a large payload (a DATA frame) as it streams past.
        toSkip = end - buf.length;
        at = buf.length;
        break;
      }
      at = end;
    }
    pending = Buffer.from(buf.subarray(at));
  };
}

function bump(m: Map<number, number>, code: number): void {
  m.set(code, (m.get(code) ?? 0) + 1);
}

/** Starts a relay on 127.0.0.1 to `target` (host:port). */
export async function startFrameTap(target: string): Promise<FrameTap> {
  const [host, port] = [target.slice(0, target.lastIndexOf(':')), Number(target.slice(target.lastIndexOf(':') + 1))];
  const clientToServer = emptyCounts();
  const serverToClient = emptyCounts();
  const sockets = new Set<net.Socket>();
  const server = net.createServer((downstream) => {
    const upstream = net.connect(port, host);
    sockets.add(downstream).add(upstream);
    const up = frameCounter(clientToServer, PREFACE_BYTES);
    const down = frameCounter(serverToClient, 0);
    downstream.on('data', (c: Buffer) => {
      up(c);
      if (!upstream.write(c)) downstream.pause();
    });
    upstream.on('drain', () => downstream.resume());
    upstream.on('data', (c: Buffer) => {
      down(c);
      if (!downstream.write(c)) upstream.pause();
    });
    downstream.on('drain', () => upstream.resume());
    const end = () => {
      downstream.destroy();
      upstream.destroy();
    };
    for (const s of [downstream, upstream]) {
      s.on('error', end);
      s.on('close', () => {
        sockets.delete(s);
        end();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const addr = server.address() as net.AddressInfo;
  return {
    address: `127.0.0.1:${addr.port}`,
    clientToServer,
    serverToClient,
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * A port a program was told to serve on that cannot be bound: one line naming the listener,
 * its flag, the address and the reason in words, for `kserve-ts serve` and the controller
 * alike. Both stop at it, exit non-zero and never report ready: a pod whose gRPC or webhook
 * port is taken must not pass its probes while serving only part of what it should.
 */
const REASONS: Readonly<Record<string, string>> = {
  EADDRINUSE: 'the address is already in use (another process holds the port)',
  EACCES: 'permission denied (ports below 1024 need privileges)',
  EADDRNOTAVAIL: "the address is not one of this machine's",
};

export class ListenError extends Error {
  constructor(what: string, flag: string, host: string, port: number, cause: unknown) {
    const message = cause instanceof Error ? cause.message : String(cause);
    // grpc-js reports the bind failure only in its message ("... listen EADDRINUSE: ...").
    const code = (cause as { code?: unknown } | undefined)?.code ?? /\b(E[A-Z]{3,})\b/.exec(message)?.[1];
    const address = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
    super(`cannot listen on ${address} for ${what} (${flag}): ${(typeof code === 'string' && REASONS[code]) || message}`, { cause });
    this.name = 'ListenError';
  }
}

/** Runs `bind`; a failure becomes a ListenError naming the listener. */
export async function listenOrFail<T>(what: string, flag: string, host: string, port: number, bind: () => Promise<T>): Promise<T> {
  try {
    return await bind();
  } catch (e) {
    throw new ListenError(what, flag, host, port, e);
  }
}

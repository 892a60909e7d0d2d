/**
 * REST access logs, as KServe's server writes them through uvicorn and `--access_log_format`
 * (asgi-logger's gunicorn-style atoms, e.g. `%(h)s "%(r)s" %(s)s %(M)s`). One `info` line per
 * response, with `component: "access"`, written after the response is sent.
 *
 * Off unless `--enable_access_log` or `--access_log_format` is given (KServe logs every
 * request by default): the inference path writes nothing unless asked to.
 *
 * Never logged, whatever the format: query strings (they carry tokens and SAS signatures)
 * and credential-bearing headers (shown as `[redacted]`); a format asking for the query
 * string is refused at start-up.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { FlagError } from '../../cli/flags.js';
import { pathOf } from './errors.js';

/** uvicorn's default access line, which KServe's server logs when no format is given. */
export const DEFAULT_ACCESS_LOG_FORMAT = '%(h)s - "%(r)s" %(s)s';

type Atom = (request: FastifyRequest, reply: FastifyReply) => string;

const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key']);

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** Apache's `[10/Oct/2000:13:55:36 +0000]`, in UTC. */
function apacheTime(ms: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, '0');
  return `[${p(d.getUTCDate())}/${MONTHS[d.getUTCMonth()]}/${d.getUTCFullYear()}:${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())} +0000]`;
}

function header(value: string | string[] | number | undefined): string {
  if (value === undefined) return '-';
  return Array.isArray(value) ? value.join(', ') : String(value);
}

const requestLine = (q: FastifyRequest): string => `${q.method} ${pathOf(q.url)} HTTP/${q.raw.httpVersion}`;
const bytes = (r: FastifyReply): string => header(r.getHeader('content-length'));

/** gunicorn's atoms (asgi-logger's names), by letter. */
const ATOMS: ReadonlyMap<string, Atom> = new Map<string, Atom>([
  ['h', (q) => `${q.socket.remoteAddress ?? '-'}:${q.socket.remotePort ?? '-'}`],
  ['l', () => '-'],
  ['u', () => '-'],
  ['t', () => apacheTime(Date.now())],
  ['r', requestLine],
  ['m', (q) => q.method],
  ['U', (q) => pathOf(q.url)],
  ['H', (q) => `HTTP/${q.raw.httpVersion}`],
  ['s', (_q, r) => String(r.statusCode)],
  ['st', (_q, r) => r.raw.statusMessage || '-'],
  ['B', (_q, r) => (r.getHeader('content-length') === undefined ? '0' : bytes(r))],
  ['b', (_q, r) => bytes(r)],
  ['f', (q) => header(q.headers['referer'])],
  ['a', (q) => header(q.headers['user-agent'])],
  ['T', (_q, r) => String(Math.floor(r.elapsedTime / 1000))],
  ['M', (_q, r) => String(Math.round(r.elapsedTime))],
  ['D', (_q, r) => String(Math.round(r.elapsedTime * 1000))],
  ['L', (_q, r) => (r.elapsedTime / 1000).toFixed(6)],
  ['p', () => `<${process.pid}>`],
]);

function headerAtom(name: string, from: 'i' | 'o'): Atom {
  const lower = name.toLowerCase();
  if (SECRET_HEADERS.has(lower)) return () => '[redacted]';
  return from === 'i' ? (q) => header(q.headers[lower]) : (_q, r) => header(r.getHeader(lower));
}

/**
 * Compiles a format once into the function that renders a line. Throws FlagError naming the
 * first atom it does not know (or will not log), so a typo fails at start-up.
 */
export function compileAccessLogFormat(format: string): (request: FastifyRequest, reply: FastifyReply) => string {
  const parts: Array<string | Atom> = [];
  const re = /%\(([^)]*)\)s|%%/g;
  let last = 0;
  for (let m = re.exec(format); m !== null; m = re.exec(format)) {
    parts.push(format.slice(last, m.index));
    last = re.lastIndex;
    if (m[0] === '%%') {
      parts.push('%');
      continue;
    }
    const name = m[1] as string;
    const braced = /^\{([^}]+)\}([io])$/.exec(name);
    const atom = braced ? headerAtom(braced[1] as string, braced[2] as 'i' | 'o') : ATOMS.get(name);
    if (atom === undefined) {
      const why = name === 'q' ? ': query strings may carry credentials and are never logged' : `; known: ${[...ATOMS.keys()].join(' ')} {header}i {header}o`;
      throw new FlagError(`--access_log_format: unsupported atom %(${name})s${why}`);
    }
    parts.push(atom);
  }
  parts.push(format.slice(last));
  const pieces = parts.filter((p) => p !== '');
  return (request, reply) => {
    let line = '';
    for (const p of pieces) line += typeof p === 'string' ? p : p(request, reply);
    return line;
  };
}

/** Adds the onResponse hook writing one access line per response. */
export function registerAccessLog(app: FastifyInstance, logger: Logger, format: string): void {
  const render = compileAccessLogFormat(format);
  const log = logger.child({ component: 'access' });
  app.addHook('onResponse', (request, reply, done) => {
    log.info(render(request, reply));
    done();
  });
}

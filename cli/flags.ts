/**
 * The one command-line parser of the three programs (`kserve-ts serve`, the controller, the
 * storage-initializer). Each program declares its flags as a table and reads typed values
 * from the result; nothing else in the code reads argv.
 *
 * Spellings, as KServe's Python servers and controller-runtime accept them:
 * - `--flag value` and `--flag=value`;
 * - `--model_name` and `--model-name` are the same flag (underscores and hyphens are one);
 * - a bool alone means true; `--flag=false` and `--flag false`: a bool takes the next word
 *   unless it is a flag, or, in a program that takes positionals, unless it is a boolean
 *   literal (so `--flag <path>` leaves the path a positional); a wrong word is an error;
 * - a value flag takes the next word unless it starts with `--` (so `-1` is a value).
 *
 * Errors are FlagError with one line naming the flag as declared. Unknown flags are an error,
 * or a warning where the program declares `unknown: 'warn'` (the server, because KServe
 * runtimes pass flags of their own model classes).
 */

export type FlagKind = 'string' | 'int' | 'bool' | 'list';

export interface FlagSpec {
  /** As the program documents it (`model_name`, `health-port`); either separator matches. */
  readonly name: string;
  readonly kind: FlagKind;
  /** The value when the flag is absent (as it would be written on the command line). */
  readonly dflt?: string;
  /** May be given several times; `values` keeps every occurrence (`all`). */
  readonly repeatable?: boolean;
  /**
   * Accepted for compatibility and has no effect: a warning when given (once, however often),
   * ending with the reason when one is given.
   */
  readonly inert?: true | string;
  readonly help: string;
  /** Shown in help as the value's placeholder, e.g. `PATH`. */
  readonly placeholder?: string;
}

/**
 * A flag accepted for compatibility with another runtime (KServe's servers) and ignored:
 * `why` is the warning a user sees once when it is given.
 */
export function inertFlag(name: string, why: string, kind: FlagKind = 'string'): FlagSpec {
  return { name, kind, inert: why, help: 'accepted for KServe compatibility; no effect' };
}

export class FlagError extends Error {}

export interface ParseOptions {
  /** What an undeclared flag is: an error (default) or a warning. */
  readonly unknown?: 'error' | 'warn';
  /** Words that are not flags: collected, warned about and ignored (default), or an error. */
  readonly positionals?: 'collect' | 'warn' | 'error';
}

const TRUE = new Set(['true', '1', 'yes', 'y', 'on', 't']);
const FALSE = new Set(['false', '0', 'no', 'n', 'off', 'f']);
const key = (name: string): string => name.replaceAll('-', '_');

/** The parsed command line: typed getters over the declared table. */
export class Flags {
  readonly #specs: ReadonlyMap<string, FlagSpec>;
  readonly #values: ReadonlyMap<string, readonly string[]>;
  /** Words that are not flags, in order (when the program takes positionals). */
  readonly positionals: readonly string[];
  readonly warnings: readonly string[];
  /** `--help` or `-h` was given. */
  readonly help: boolean;

  constructor(specs: ReadonlyMap<string, FlagSpec>, values: ReadonlyMap<string, readonly string[]>, positionals: string[], warnings: string[], help: boolean) {
    this.#specs = specs;
    this.#values = values;
    this.positionals = positionals;
    this.warnings = warnings;
    this.help = help;
  }

  #spec(name: string): FlagSpec {
    const spec = this.#specs.get(key(name));
    if (spec === undefined) throw new Error(`flag --${name} is not declared`);
    return spec;
  }

  /** Whether the flag was given on the command line (rather than defaulted). */
  given(name: string): boolean {
    return this.#values.has(key(this.#spec(name).name));
  }

  /** Names (as declared) of the flags given on the command line. */
  givenNames(): string[] {
    return [...this.#values.keys()].map((k) => (this.#specs.get(k) as FlagSpec).name);
  }

  /** The last value given, else the default; undefined when neither exists. */
  raw(name: string): string | undefined {
    const spec = this.#spec(name);
    const given = this.#values.get(key(spec.name));
    return given === undefined ? spec.dflt : given[given.length - 1];
  }

  string(name: string): string {
    return this.raw(name) ?? '';
  }

  /** Every value of a repeatable flag, in order (empty when absent). */
  all(name: string): readonly string[] {
    return this.#values.get(key(this.#spec(name).name)) ?? [];
  }

  /** A non-negative decimal integer; `min` bounds it from below. */
  int(name: string, min = 0): number {
    const spec = this.#spec(name);
    const v = this.string(name).trim();
    if (!/^\d+$/.test(v)) throw new FlagError(`--${spec.name} expects a non-negative integer, got '${v}'`);
    const n = Number(v);
    if (n < min) throw new FlagError(`--${spec.name} must be at least ${min}, got ${n}`);
    return n;
  }

  bool(name: string): boolean {
    const spec = this.#spec(name);
    const v = this.string(name).toLowerCase();
    if (TRUE.has(v)) return true;
    if (FALSE.has(v)) return false;
    throw new FlagError(`--${spec.name} expects true or false, got '${this.string(name)}'`);
  }

  /** Comma-separated words, trimmed, empty ones dropped. */
  list(name: string): string[] {
    return this.string(name)
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  }
}

function table(specs: readonly FlagSpec[]): Map<string, FlagSpec> {
  const out = new Map<string, FlagSpec>();
  for (const s of specs) {
    if (out.has(key(s.name))) throw new Error(`flag --${s.name} is declared twice`);
    out.set(key(s.name), s);
  }
  return out;
}

export function parseFlags(argv: readonly string[], specs: readonly FlagSpec[], opts: ParseOptions = {}): Flags {
  const byKey = table(specs);
  const values = new Map<string, string[]>();
  const positionals: string[] = [];
  const warnings: string[] = [];
  let help = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--help' || arg === '-h') {
      help = true;
      continue;
    }
    if (!arg.startsWith('--') || arg === '--') {
      if (opts.positionals === 'collect') positionals.push(arg);
      else if (opts.positionals === 'error') throw new FlagError(`unexpected argument '${arg}'`);
      else warnings.push(`ignoring unexpected argument '${arg}'`);
      continue;
    }
    const eq = arg.indexOf('=');
    const written = eq < 0 ? arg.slice(2) : arg.slice(2, eq);
    const spec = byKey.get(key(written));
    const next = argv[i + 1];
    let value: string | undefined = eq < 0 ? undefined : arg.slice(eq + 1);
    if (value === undefined) {
      if (spec?.kind === 'bool') {
        const literal = next !== undefined && (TRUE.has(next.toLowerCase()) || FALSE.has(next.toLowerCase()));
        if (next !== undefined && !next.startsWith('--') && (literal || opts.positionals !== 'collect')) {
          value = next;
          i++;
        } else value = 'true';
      } else if (next !== undefined && !next.startsWith('--')) {
        value = next;
        i++;
      } else if (spec === undefined || spec.inert) value = '';
      else throw new FlagError(`--${spec.name} needs a value`);
    }
    if (spec === undefined) {
      if (opts.unknown === 'warn') warnings.push(`unknown flag --${written} ignored`);
      else throw new FlagError(`unknown flag --${written}`);
      continue;
    }
    if (spec.inert) {
      const why = typeof spec.inert === 'string' ? `: ${spec.inert}` : '';
      const warning = `--${spec.name} is accepted for KServe compatibility and has no effect${why}`;
      if (!warnings.includes(warning)) warnings.push(warning);
      continue;
    }
    const k = key(spec.name);
    const list = values.get(k);
    if (list === undefined) values.set(k, [value]);
    else if (spec.repeatable) list.push(value);
    else list[0] = value;
  }
  return new Flags(byKey, values, positionals, warnings, help);
}

/** `  --name PLACEHOLDER   help (default x)` lines for a program's usage text. */
export function flagHelp(specs: readonly FlagSpec[]): string[] {
  const shown = specs.filter((s) => !s.inert);
  const left = (s: FlagSpec) => `--${s.name}${s.kind === 'bool' ? '' : ` ${s.placeholder ?? (s.kind === 'int' ? 'N' : 'VALUE')}`}`;
  const width = Math.max(...shown.map((s) => left(s).length)) + 2;
  return shown.map((s) => `  ${left(s).padEnd(width)}${s.help}${s.dflt ? ` (default ${s.dflt})` : ''}`);
}

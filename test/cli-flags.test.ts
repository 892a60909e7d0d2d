/** The shared CLI parser (cli/flags.ts) of the server, the controller and the storage-initializer. */
import { describe, expect, it } from 'vitest';
import { FlagError, type FlagSpec, parseFlags } from '../cli/flags.js';

const SPECS: readonly FlagSpec[] = [
  { name: 'model_name', kind: 'string', dflt: 'model', help: '' },
  { name: 'http-port', kind: 'int', dflt: '8080', help: '' },
  { name: 'enable_grpc', kind: 'bool', dflt: 'true', help: '' },
  { name: 'install-crds', kind: 'bool', dflt: 'false', help: '' },
  { name: 'cert-host', kind: 'string', repeatable: true, help: '' },
  { name: 'providers', kind: 'list', dflt: 'cpu', help: '' },
  { name: 'max_threads', kind: 'string', inert: true, help: '' },
];

describe('parseFlags', () => {
  it.each([
    [['--model_name', 'm'], 'm'],
    [['--model_name=m'], 'm'],
    [['--model-name', 'm'], 'm'],
    [['--model-name=a=b'], 'a=b'],
    [['--model_name', 'a', '--model_name', 'b'], 'b'],
    [[], 'model'],
  ])('reads %j as model_name %j', (argv, want) => {
    expect(parseFlags(argv, SPECS).string('model_name')).toBe(want);
  });

  it('treats underscores and hyphens as one, whichever the program declared', () => {
    const f = parseFlags(['--http_port', '9000', '--install_crds'], SPECS);
    expect(f.int('http-port')).toBe(9000);
    expect(f.bool('install-crds')).toBe(true);
    expect(f.given('http_port')).toBe(true);
    expect(f.given('model_name')).toBe(false);
    expect(f.givenNames()).toEqual(['http-port', 'install-crds']);
  });

  it.each([
    [['--enable_grpc'], true],
    [['--enable_grpc', 'false'], false],
    [['--enable_grpc=False'], false],
    [['--enable_grpc', '0'], false],
    [[], true],
  ])('reads bool %j as %j', (argv, want) => {
    expect(parseFlags(argv, SPECS).bool('enable_grpc')).toBe(want);
  });

  it('leaves a non-literal word after a bool to the positionals in programs that take them', () => {
    const f = parseFlags(['--install-crds', 's3://b/m', '/mnt/models'], SPECS, { positionals: 'collect' });
    expect(() => parseFlags(['--install-crds', 'x', 'y'], SPECS, { positionals: 'error' })).toThrow("unexpected argument 'y'");
    expect(f.bool('install-crds')).toBe(true);
    expect(f.positionals).toEqual(['s3://b/m', '/mnt/models']);
    expect(() => parseFlags(['--enable_grpc', 'maybe'], SPECS).bool('enable_grpc')).toThrow("--enable_grpc expects true or false, got 'maybe'");
  });

  it('keeps every value of a repeatable flag and splits lists', () => {
    const f = parseFlags(['--cert-host', 'a', '--cert_host=b', '--providers', 'CUDA, cpu,'], SPECS);
    expect(f.all('cert-host')).toEqual(['a', 'b']);
    expect(f.list('providers')).toEqual(['CUDA', 'cpu']);
  });

  it('takes a value that starts with a single dash', () => {
    expect(parseFlags(['--model_name', '-1'], SPECS).string('model_name')).toBe('-1');
  });

  it.each([
    [['--bogus'], 'unknown flag --bogus'],
    [['--model_name'], '--model_name needs a value'],
    [['--model_name', '--enable_grpc'], '--model_name needs a value'],
  ])('refuses %j with one line', (argv, message) => {
    expect(() => parseFlags(argv, SPECS)).toThrow(FlagError);
    expect(() => parseFlags(argv, SPECS)).toThrow(message);
  });

  it.each([
    [['--http-port', 'x'], "--http-port expects a non-negative integer, got 'x'"],
    [['--http-port', '-3'], "--http-port expects a non-negative integer, got '-3'"],
  ])('refuses a malformed value %j when it is read', (argv, message) => {
    const f = parseFlags(argv, SPECS);
    expect(() => f.int('http-port')).toThrow(FlagError);
    expect(() => f.int('http-port')).toThrow(message);
  });

  it('bounds integers from below with a message naming the flag', () => {
    expect(() => parseFlags(['--http-port', '0'], SPECS).int('http-port', 1)).toThrow('--http-port must be at least 1, got 0');
  });

  it('warns instead where the program asks, and for inert and stray words', () => {
    const f = parseFlags(['--typo', '3', '--max_threads', '8', 'stray'], SPECS, { unknown: 'warn' });
    expect(f.warnings).toEqual(['unknown flag --typo ignored', '--max_threads is accepted for KServe compatibility and has no effect', "ignoring unexpected argument 'stray'"]);
  });

  it('sees --help and -h', () => {
    expect(parseFlags(['-h'], SPECS).help).toBe(true);
    expect(parseFlags(['--model_name', 'x', '--help'], SPECS).help).toBe(true);
    expect(parseFlags([], SPECS).help).toBe(false);
  });

  it('refuses a table that declares one flag twice under either spelling', () => {
    expect(() => parseFlags([], [...SPECS, { name: 'model-name', kind: 'string', help: '' }])).toThrow('flag --model-name is declared twice');
  });
});

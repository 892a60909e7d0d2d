/** Flag parsing: KServe's names and defaults, spellings, validation and warnings. */
import { describe, expect, it } from 'vitest';
import { BackendSettings } from './backend/backend-settings.js';
import { onnxSettings } from './backends/onnx/onnx-options.js';
import { ConfigError, parseServeArgs as parseWith, usableCpus } from './config.js';
import { defaultBackends } from './server.js';

const backends = defaultBackends();
/** As `kserve-ts serve` parses: the server's flags and every default backend's. */
const parseServeArgs = (argv: string[], env: NodeJS.ProcessEnv) => {
  const parsed = parseWith(argv, env, backends.flags());
  new BackendSettings(backends, parsed.config.flags);
  return parsed;
};
const onnx = (argv: string[]) => onnxSettings(parseServeArgs(argv, {}).config.flags);

describe('parseServeArgs', () => {
  it("defaults to KServe's ports and limits", () => {
    const { config, warnings } = parseServeArgs([], {});
    expect(config).toMatchObject({
      httpPort: 8080,
      grpcPort: 8081,
      enableGrpc: true,
      enableDocsUrl: false,
      modelName: 'model',
      modelDir: undefined,
      grpcMaxSendMessageLength: 8 * 1024 * 1024,
      grpcMaxReceiveMessageLength: 8 * 1024 * 1024,
      restMaxBodyBytes: 256 * 1024 * 1024,
      intraOpThreads: usableCpus(),
      logLevel: 'info',
      repositoryPollSeconds: 0,
    });
    expect(onnx([])).toEqual({ executionProviders: ['cpu'], interOpThreads: 1, inlineMaxMicros: 100, telemetry: false, cuda: {} });
    expect(warnings).toEqual([]);
    expect(Object.isFrozen(config)).toBe(true);
  });

  it.each([
    [['--http_port', '9000'], { httpPort: 9000 }],
    [['--http_port=9000'], { httpPort: 9000 }],
    [['--http-port', '9000'], { httpPort: 9000 }],
    [['--enable_grpc', 'false'], { enableGrpc: false }],
    [['--enable_grpc=False'], { enableGrpc: false }],
    [['--enable_docs_url'], { enableDocsUrl: true }],
    [['--model_name={{.Name}}', '--model_dir=/mnt/models'], { modelName: '{{.Name}}', modelDir: '/mnt/models' }],
    [['--grpc_max_receive_message_length', '-1'], { grpcMaxReceiveMessageLength: -1 }],
    [['--log_level', 'warning'], { logLevel: 'warn' }],
    [['--repository_poll_secs', '5'], { repositoryPollSeconds: 5 }],
    [['--repository-poll-secs=5'], { repositoryPollSeconds: 5 }],
  ])('%j', (argv, expected) => {
    expect(parseServeArgs(argv, {}).config).toMatchObject(expected);
  });

  it.each([
    [['--execution_providers', 'CUDA, cpu'], { executionProviders: ['cuda', 'cpu'] }],
    [['--execution-providers=cuda'], { executionProviders: ['cuda'] }],
    [['--inline_max_us', '0'], { inlineMaxMicros: 0 }],
    [['--enable_ort_telemetry'], { telemetry: true }],
    [['--inter_op_threads', '3'], { interOpThreads: 3 }],
  ])('onnx backend flag %j', (argv, expected) => {
    expect(onnx(argv)).toMatchObject(expected);
  });

  it('divides operator threads among worker processes', () => {
    const cpus = usableCpus();
    expect(parseServeArgs(['--workers', '2'], {}).config.intraOpThreads).toBe(Math.max(1, Math.floor(cpus / 2)));
    expect(parseServeArgs(['--workers', '64'], {}).config.intraOpThreads).toBe(1);
    expect(parseServeArgs(['--workers', '2', '--intra_op_threads', '3'], {}).config.intraOpThreads).toBe(3);
  });

  it('takes --workers auto as the CPUs this process may use, and KSERVE_TS_WORKERS when the flag is absent', () => {
    const cpus = usableCpus();
    expect(parseServeArgs(['--workers', 'auto'], {}).config).toMatchObject({ workers: cpus, intraOpThreads: 1 });
    expect(parseServeArgs([], { KSERVE_TS_WORKERS: 'auto' }).config.workers).toBe(cpus);
    expect(parseServeArgs([], { KSERVE_TS_WORKERS: '3' }).config.workers).toBe(3);
    // The flag wins over the image's environment.
    expect(parseServeArgs(['--workers', '1'], { KSERVE_TS_WORKERS: 'auto' }).config.workers).toBe(1);
    expect(parseServeArgs([], {}).config.workers).toBe(1);
  });

  it('reads KSERVE_LOGLEVEL when --log_level is absent', () => {
    expect(parseServeArgs([], { KSERVE_LOGLEVEL: 'DEBUG' }).config.logLevel).toBe('debug');
    expect(parseServeArgs(['--log_level', 'error'], { KSERVE_LOGLEVEL: 'DEBUG' }).config.logLevel).toBe('error');
  });

  it.each([
    [['--http_port', 'x'], "--http_port expects a non-negative integer, got 'x'"],
    [['--http_port', '70000'], '--http_port must be at most 65535, got 70000'],
    [['--enable_grpc', 'maybe'], "--enable_grpc expects true or false, got 'maybe'"],
    [['--model_dir', 'a', '--model_repository', 'b'], '--model_dir and --model_repository are mutually exclusive'],
    [['--execution_providers', 'tpu'], "--execution_providers: unknown provider 'tpu' (cpu, cuda)"],
    [['--log_level', 'loud'], "--log_level must be one of trace, debug, info, warn, error; got 'loud'"],
    [['--workers', '0'], '--workers must be at least 1'],
    [['--workers', 'many'], "--workers expects a whole number or 'auto', got 'many'"],
    [['--http_port'], '--http_port needs a value'],
    [['--inline_max_us', '-5'], "--inline_max_us expects a non-negative integer, got '-5'"],
    [['--repository_poll_secs', '-1'], "--repository_poll_secs expects a non-negative integer, got '-1'"],
  ])('rejects %j', (argv, message) => {
    expect(() => parseServeArgs(argv, {})).toThrow(ConfigError);
    expect(() => parseServeArgs(argv, {})).toThrow(message);
  });

  it("serves HTTPS on KServe's 8443 when given a pair and the port was left alone, from flags or KServe's environment", () => {
    const tls = { certFile: '/c.pem', keyFile: '/k.pem' };
    expect(parseServeArgs(['--ssl_certfile', '/c.pem', '--ssl_keyfile', '/k.pem'], {}).config).toMatchObject({ tls, httpPort: 8443 });
    expect(parseServeArgs(['--ssl_certfile', '/c.pem', '--ssl_keyfile', '/k.pem', '--http_port', '9000'], {}).config).toMatchObject({ tls, httpPort: 9000 });
    expect(parseServeArgs([], { KSERVE_TLS_CERT_FILE: '/c.pem', KSERVE_TLS_KEY_FILE: '/k.pem' }).config).toMatchObject({ tls, httpPort: 8443 });
    expect(parseServeArgs([], {}).config).toMatchObject({ tls: undefined, httpPort: 8080 });
    expect(() => parseServeArgs(['--ssl_keyfile', '/k.pem'], {})).toThrow('--ssl_certfile and --ssl_keyfile');
  });

  it('warns about unknown flags and accepted-but-inert KServe flags, never failing', () => {
    const argv = ['--typo_flag', '3', '--max_threads', '8', '--workers', '2', 'stray', '--max_threads=4', '--log_config_file', 'x.yaml'];
    const { config, warnings } = parseServeArgs(argv, {});
    expect(config.workers).toBe(2);
    // Once per flag however often it is given, each with why it does nothing here.
    expect(warnings).toEqual([
      'unknown flag --typo_flag ignored',
      '--max_threads is accepted for KServe compatibility and has no effect: Python thread-pool size; hooks run on the event loop (use --model_module_worker for blocking code)',
      "ignoring unexpected argument 'stray'",
      '--log_config_file is accepted for KServe compatibility and has no effect: a Python logging dictConfig file is not read; use --log_level (logs are JSON lines on stdout)',
    ]);
  });
});

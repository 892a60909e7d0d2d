/**
 * The --predictor_* flags as the server parses them (the custom backend's flag table through
 * the shared parser), and the host:port the clients dial.
 */
import { describe, expect, it } from 'vitest';
import { FlagError, parseFlags } from '../../cli/flags.js';
import { PREDICTOR_FLAGS, hostWithPort, predictorConfigFrom } from '../../server/predictor-client/predictor-config.js';

const parse = (argv: string[]) => predictorConfigFrom(parseFlags(argv, PREDICTOR_FLAGS));

describe('predictorConfigFrom', () => {
  it('is undefined without --predictor_host: not a transformer', () => {
    expect(parse([])).toBeUndefined();
  });

  it("takes KServe's defaults: v1, 600 s, no retries, no TLS, no health check", () => {
    expect(parse(['--predictor_host', 'iris-predictor.ml'])).toEqual({
      host: 'iris-predictor.ml',
      protocol: 'v1',
      useSsl: false,
      requestTimeoutSeconds: 600,
      retries: 0,
      healthCheck: false,
      maxInflightAnswerBytes: 1024 * 1024 * 1024,
    });
  });

  it('reads every flag, and --protocol when --predictor_protocol is not given', () => {
    expect(
      parse([
        '--predictor_host=127.0.0.1:9000',
        '--predictor_protocol',
        'grpc-v2',
        '--predictor_use_ssl',
        '--predictor_request_timeout_seconds',
        '5',
        '--predictor_request_retries',
        '2',
        '--enable_predictor_health_check',
        '--predictor_max_inflight_answer_bytes',
        '4096',
      ]),
    ).toEqual({ host: '127.0.0.1:9000', protocol: 'grpc-v2', useSsl: true, requestTimeoutSeconds: 5, retries: 2, healthCheck: true, maxInflightAnswerBytes: 4096 });
    expect(parse(['--predictor_host', 'p', '--protocol', 'v2'])?.protocol).toBe('v2');
    expect(parse(['--predictor_host', 'p', '--protocol', 'v2', '--predictor_protocol', 'v1'])?.protocol).toBe('v1');
  });

  it.each([
    [['--predictor_host', 'p', '--predictor_protocol', 'grpc-v1'], /--predictor_protocol must be one of v1, v2, grpc-v2; got 'grpc-v1'/],
    [['--predictor_host', 'p', '--predictor_request_timeout_seconds', '0'], /at least 1/],
    [['--predictor_host', 'p', '--predictor_request_retries=-1'], /--predictor_request_retries expects/],
    [['--predictor_host', 'http://p:8080'], /HOST\[:PORT\] without a scheme or path/],
    [['--predictor_host', 'p:8080/v1'], /HOST\[:PORT\] without a scheme or path/],
  ])('refuses %j at start-up', (argv, message) => {
    expect(() => parse(argv)).toThrow(FlagError);
    expect(() => parse(argv)).toThrow(message);
  });
});

describe('hostWithPort', () => {
  it.each([
    ['iris-predictor.ml', false, 'iris-predictor.ml:80'],
    ['iris-predictor.ml', true, 'iris-predictor.ml:443'],
    ['127.0.0.1:8081', false, '127.0.0.1:8081'],
    ['[::1]', false, '[::1]:80'],
    ['[::1]:9000', true, '[::1]:9000'],
  ])('%s (TLS %s) is dialled as %s', (host, tls, want) => {
    expect(hostWithPort(host, tls)).toBe(want);
  });
});

/** `kserve-ts controller` flags: defaults, and a clear error for every bad value. */
import { describe, expect, it } from 'vitest';
import { OptionsError, parseControllerArgs } from '../../controller/options.js';

describe('parseControllerArgs', () => {
  it('defaults follow controller-runtime and KServe', () => {
    const c = parseControllerArgs([], {});
    expect(c).toMatchObject({
      namespace: 'kserve',
      healthPort: 8081,
      webhookPort: 9443,
      leaderElect: true,
      leaseName: 'kserve-ts-controller',
      leaseDurationSeconds: 15,
      renewDeadlineSeconds: 10,
      retryPeriodSeconds: 2,
      certSecret: 'kserve-ts-webhook-cert',
      installCrds: false,
    });
    expect(Object.isFrozen(c)).toBe(true);
  });

  it('reads KUBECONFIG and POD_NAMESPACE only as defaults', () => {
    expect(parseControllerArgs([], { KUBECONFIG: '/k', POD_NAMESPACE: 'ops' })).toMatchObject({ kubeconfig: '/k', namespace: 'ops' });
    expect(parseControllerArgs(['--namespace', 'x', '--kubeconfig', '/y'], { KUBECONFIG: '/k', POD_NAMESPACE: 'ops' })).toMatchObject({ kubeconfig: '/y', namespace: 'x' });
  });

  it('accepts both separators and both value forms, and repeats --cert-host', () => {
    expect(parseControllerArgs(['--health_port=9000', '--webhook-port', '0', '--install-crds', '--leader-elect', 'false', '--cert-host', 'a', '--cert_host=b'], {})).toMatchObject({
      healthPort: 9000,
      webhookPort: 0,
      installCrds: true,
      leaderElect: false,
      certHosts: ['a', 'b'],
    });
  });

  it.each([
    [['--bogus'], 'unknown flag --bogus'],
    [['stray'], "unexpected argument 'stray'"],
    [['--cert-dir'], '--cert-dir needs a value'],
    [['--health-port', 'x'], "--health-port must be an integer ≥ 0, got 'x'"],
    [['--concurrency', '0'], "--concurrency must be an integer ≥ 1, got '0'"],
    [['--lease-duration=-1'], "--lease-duration must be a positive number of seconds, got '-1'"],
    [['--retry-period', '0'], "--retry-period must be a positive number of seconds, got '0'"],
    [['--leader-elect', 'yes'], "--leader-elect must be true or false, got 'yes'"],
    [['--webhook-service', 'no-slash'], "--webhook-service must be NAMESPACE/NAME, got 'no-slash'"],
    [['--lease-duration', '5', '--renew-deadline', '5'], '--renew-deadline must be shorter than --lease-duration'],
  ])('rejects %j', (argv, message) => {
    expect(() => parseControllerArgs(argv, {})).toThrow(OptionsError);
    expect(() => parseControllerArgs(argv, {})).toThrow(message);
  });
});

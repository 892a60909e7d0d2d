/**
 * Cluster DNS on the real node: CoreDNS (scripts/kube-node.sh, kubernetes plugin against the
 * API server) on the node address, which kubelet gives pods as their nameserver. A pod
 * resolves Services by short name (its namespace's search domain), `name.namespace` (what a
 * transformer's --predictor_host uses) and the full name to their ClusterIPs; an unknown
 * name fails; the host asks the same server directly.
 */
import { Resolver } from 'node:dns/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../controller/harness/index.js';
import { imageName } from '../../images/docker.js';
import { manifest } from './fixtures.js';
import { type KubeNode, NODE_IP, useKubeNode } from './kube-node.js';

const NS = `dns-${process.pid}`;
const API_SERVICE_IP = '10.96.0.1';

let node: KubeNode;

beforeAll(async () => {
  node = await useKubeNode();
  await node.kubectlOk(['create', 'namespace', NS]);
}, 600_000);

afterEach(async (ctx) => {
  if (ctx.task.result?.state === 'fail') console.log(`diagnostics for "${ctx.task.name}":\n${await node.diagnostics([NS])}`);
});

afterAll(async () => {
  if (node) {
    await node.kubectl(['delete', 'namespace', NS, '--wait=true', '--timeout=120s'], { timeoutMs: 130_000 });
    await node.release();
  }
}, 300_000);

/** Runs in the pod: each name through getaddrinfo (the pod's resolv.conf, search list included). */
const LOOKUPS = `
const dns = require('node:dns').promises;
const fs = require('node:fs');
const names = process.argv.slice(1);
Promise.all(names.map((n) => dns.lookup(n, { family: 4 }).then((r) => r.address, (e) => e.code))).then((answers) => {
  console.log(JSON.stringify({ resolvConf: fs.readFileSync('/etc/resolv.conf', 'utf8'), answers: Object.fromEntries(names.map((n, i) => [n, answers[i]])) }));
});
`;

describe('cluster DNS on a real node', () => {
  it('a pod resolves Service names (short, name.namespace, full) to their ClusterIPs; an unknown name is not found', { timeout: 240_000 }, async () => {
    await node.kubectlOk(['apply', '-f', '-'], {
      input: manifest([{ apiVersion: 'v1', kind: 'Service', metadata: { name: 'dns-target', namespace: NS }, spec: { ports: [{ port: 80 }], selector: { app: 'none' } } }]),
    });
    const ip = JSON.parse(await node.kubectlOk(['get', 'service', 'dns-target', '-n', NS, '-o', 'json'])).spec.clusterIP as string;
    const names = ['dns-target', `dns-target.${NS}`, `dns-target.${NS}.svc.cluster.local`, 'kubernetes.default', 'no-such-service'];
    await node.kubectlOk(['apply', '-f', '-'], {
      input: manifest([
        {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: 'resolver', namespace: NS },
          spec: {
            restartPolicy: 'Never',
            containers: [
              {
                name: 'resolver',
                image: imageName('server'),
                imagePullPolicy: 'IfNotPresent',
                command: ['node', '-e', LOOKUPS, ...names],
                resources: { requests: { cpu: '50m', memory: '64Mi' }, limits: { cpu: '500m', memory: '256Mi' } },
              },
            ],
          },
        },
      ]),
    });
    const phase = await waitFor(async () => JSON.parse(await node.kubectlOk(['get', 'pod', 'resolver', '-n', NS, '-o', 'json'])).status.phase as string, {
      timeoutMs: 120_000,
      intervalMs: 500,
      description: 'the resolver pod to finish',
      until: (p) => p === 'Succeeded' || p === 'Failed',
    });
    const logs = await node.kubectlOk(['logs', '-n', NS, 'resolver']);
    expect(phase, logs).toBe('Succeeded');
    const out = JSON.parse(logs.trim().split('\n').pop()!) as { resolvConf: string; answers: Record<string, string> };
    expect(out.resolvConf).toMatch(new RegExp(`^nameserver ${NODE_IP.replace(/\./g, '\\.')}$`, 'm'));
    expect(out.resolvConf).toMatch(new RegExp(`^search ${NS}\\.svc\\.cluster\\.local svc\\.cluster\\.local cluster\\.local`, 'm'));
    expect(out.answers).toEqual({
      'dns-target': ip,
      [`dns-target.${NS}`]: ip,
      [`dns-target.${NS}.svc.cluster.local`]: ip,
      'kubernetes.default': API_SERVICE_IP,
      'no-such-service': 'ENOTFOUND',
    });
  });

  it('the host queries the node DNS directly: A records for Services, NXDOMAIN for an unknown one in the zone', async () => {
    const resolver = new Resolver({ timeout: 2_000, tries: 2 });
    resolver.setServers([NODE_IP]);
    expect(await resolver.resolve4('kubernetes.default.svc.cluster.local')).toEqual([API_SERVICE_IP]);
    await expect(resolver.resolve4(`no-such-service.${NS}.svc.cluster.local`)).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });
});

/**
 * helm, kubeconform and the offline Kubernetes JSON schemas, built (once, then cached) by
 * scripts/helm-tools.sh. A cold build takes minutes: call from a beforeAll with a long timeout.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { memoised, runBinScript } from './bin-script.js';

export interface HelmTools {
  readonly helm: string;
  readonly kubeconform: string;
  /** Folder of `<kind>-<group>-<version>.json` schemas (strict: unknown fields are errors). */
  readonly kubernetesSchemas: string;
}

export const ensureHelmTools: () => Promise<HelmTools> = memoised(async () => {
  const bin = await runBinScript('helm-tools.sh');
  const schemaRoot = path.join(bin, '..', 'schemas');
  const [version] = readdirSync(schemaRoot);
  if (!version) throw new Error(`no schemas under ${schemaRoot}`);
  return {
    helm: path.join(bin, 'helm'),
    kubeconform: path.join(bin, 'kubeconform'),
    kubernetesSchemas: path.join(schemaRoot, version),
  };
});

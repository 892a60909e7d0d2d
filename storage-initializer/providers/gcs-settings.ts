/** Google Cloud Storage's settings (KServe's variable names, and the emulator's). */
import { type Env, bool } from '../env.js';
import type { ProviderSettings } from '../provider.js';
import { uriSecrets } from '../redact.js';

export interface GcsConfig {
  /** Emulator or private endpoint, e.g. http://127.0.0.1:4443 (STORAGE_EMULATOR_HOST or GCS_ENDPOINT). */
  endpoint: string | undefined;
  credentialsFile: string | undefined;
  anonymous: boolean;
}

function endpoint(env: Env): string | undefined {
  const emulator = env['STORAGE_EMULATOR_HOST'];
  const ep = env['GCS_ENDPOINT'] || (emulator ? (/^https?:\/\//.test(emulator) ? emulator : `http://${emulator}`) : undefined);
  return ep?.replace(/\/+$/, '');
}

export const GCS_SETTINGS: ProviderSettings<GcsConfig> = {
  read: (env) => ({
    endpoint: endpoint(env),
    credentialsFile: env['GOOGLE_APPLICATION_CREDENTIALS'] || undefined,
    anonymous: bool(env['GCS_ANONYMOUS'], false),
  }),
  // The credentials file is a path; its contents never reach a message.
  secrets: (c) => uriSecrets(c.endpoint),
};

/**
 * Every provider's settings, by the name the run's configuration holds them under
 * (`config.s3`, `config.azure`...). Read at start-up by config.ts and scrubbed by the CLI
 * from this table only; a provider with settings adds its `<name>-settings.ts` and a row.
 * Settings modules import no SDK, so reading them costs a run nothing it does not use.
 */
import type { Env, StorageConfigObject } from '../env.js';
import type { ProviderSettings } from '../provider.js';
import { AZURE_SETTINGS } from './azure-settings.js';
import { GCS_SETTINGS } from './gcs-settings.js';
import { HF_SETTINGS } from './hf-settings.js';
import { HTTP_SETTINGS } from './http-settings.js';
import { S3_SETTINGS } from './s3-settings.js';
import { HDFS_SETTINGS } from './webhdfs-settings.js';

export const PROVIDER_SETTINGS = Object.freeze({
  s3: S3_SETTINGS,
  gcs: GCS_SETTINGS,
  azure: AZURE_SETTINGS,
  hf: HF_SETTINGS,
  hdfs: HDFS_SETTINGS,
  http: HTTP_SETTINGS,
});

/** Each provider's settings as read. */
export type ProviderConfigs = {
  readonly [K in keyof typeof PROVIDER_SETTINGS]: Readonly<ReturnType<(typeof PROVIDER_SETTINGS)[K]['read']>>;
};

type Name = keyof ProviderConfigs;
/** The table's rows with their settings type forgotten, for the loops below (each row reads and scrubs its own type). */
const ROWS = Object.entries(PROVIDER_SETTINGS) as [Name, ProviderSettings<unknown>][];

/** Every provider's settings, read in the table's order and frozen. */
export function readProviderConfigs(env: Env, storageConfig: StorageConfigObject): ProviderConfigs {
  return Object.fromEntries(ROWS.map(([name, settings]) => [name, Object.freeze(settings.read(env, storageConfig))])) as unknown as ProviderConfigs;
}

/** The credentials every provider names in its settings, for the output scrubber. */
export function providerSecrets(configs: ProviderConfigs): string[] {
  return ROWS.flatMap(([name, settings]) => settings.secrets(configs[name])).filter((s): s is string => !!s);
}

/** The Hugging Face Hub's settings (the huggingface_hub library's variable names, as KServe's). */
import type { ProviderSettings } from '../provider.js';
import { uriSecrets } from '../redact.js';

export interface HfConfig {
  /** HF_ENDPOINT (mirrors, air-gapped sites); default https://huggingface.co. */
  endpoint: string;
  /** HF_TOKEN (or the older HUGGING_FACE_HUB_TOKEN). */
  token: string | undefined;
}

export const HF_SETTINGS: ProviderSettings<HfConfig> = {
  read: (env) => ({
    endpoint: (env['HF_ENDPOINT'] || 'https://huggingface.co').replace(/\/+$/, ''),
    token: env['HF_TOKEN'] || env['HUGGING_FACE_HUB_TOKEN'] || undefined,
  }),
  secrets: (c) => [c.token, ...uriSecrets(c.endpoint)],
};

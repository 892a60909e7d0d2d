/**
 * Hugging Face Hub (KServe `pkg/credentials/hf`): a secret with `HF_TOKEN` gives the
 * storage-initializer `HF_TOKEN` by reference; kserve-ts also passes `HF_ENDPOINT` when the
 * secret holds one (a mirror, which is how air-gapped sites reach the Hub).
 */
import { mergeEnv } from '../pod/pod-spec.js';
import { secretHasKey } from './credential-source.js';
import { type CredentialProvider, secretRef } from './provider.js';

export const HF_TOKEN = 'HF_TOKEN';
export const HF_ENDPOINT = 'HF_ENDPOINT';

export const huggingFace: CredentialProvider = {
  name: 'hf',
  matches: (secret) => secretHasKey(secret, HF_TOKEN),
  inject(secret, { container }) {
    mergeEnv(container, [secretRef(secret, HF_TOKEN), ...(secretHasKey(secret, HF_ENDPOINT) ? [secretRef(secret, HF_ENDPOINT)] : [])]);
  },
};

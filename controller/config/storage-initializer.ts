/** `storageInitializer` key: the init container the pod webhook injects. */
import { type ModelCacheConfig, parseModelCacheConfig } from './model-cache.js';
import { type ModelcarConfig, parseModelcarConfig } from './modelcar.js';
import { parseSection, stringField } from './section.js';

export interface StorageInitializerConfig {
  image: string;
  cpuRequest: string;
  cpuLimit: string;
  memoryRequest: string;
  memoryLimit: string;
  caBundleConfigMapName: string;
  caBundleVolumeMountPath: string;
  /** How `oci://` URIs are served (the section's modelcar keys). */
  modelcar: ModelcarConfig;
  /** The node-local model cache (the section's cache keys); undefined: none. */
  modelCache: ModelCacheConfig | undefined;
}

const KEY = 'storageInitializer';

export function parseStorageInitializerConfig(raw: string | undefined): StorageInitializerConfig {
  const s = parseSection(KEY, raw);
  return {
    image: stringField(KEY, s, 'image', 'kserve-ts-storage-initializer:0.1.0'),
    cpuRequest: stringField(KEY, s, 'cpuRequest', '100m'),
    cpuLimit: stringField(KEY, s, 'cpuLimit', '1'),
    memoryRequest: stringField(KEY, s, 'memoryRequest', '100Mi'),
    memoryLimit: stringField(KEY, s, 'memoryLimit', '1Gi'),
    caBundleConfigMapName: stringField(KEY, s, 'caBundleConfigMapName', ''),
    caBundleVolumeMountPath: stringField(KEY, s, 'caBundleVolumeMountPath', '/etc/ssl/custom-certs'),
    modelcar: parseModelcarConfig(KEY, s),
    modelCache: parseModelCacheConfig(KEY, s),
  };
}

/** The modelcar keys of `inferenceservice-config` storageInitializer, parsed once and validated. */
import { describe, expect, it } from 'vitest';
import { parseInferenceServiceConfig } from '../../controller/config/inferenceservice-config.js';
import { ConfigError } from '../../controller/config/section.js';

const modelcar = (storageInitializer: Record<string, unknown>) =>
  parseInferenceServiceConfig({ storageInitializer: JSON.stringify(storageInitializer) }).storageInitializer.modelcar;

describe('storageInitializer modelcar keys', () => {
  it('are off by default with KServe’s resource defaults and no user', () => {
    expect(parseInferenceServiceConfig(undefined).storageInitializer.modelcar).toEqual({ enabled: false, cpu: '10m', memory: '15Mi', uid: undefined });
  });

  it.each<[string, Record<string, unknown>]>([
    ['enableModelcar', { enableModelcar: true }],
    ['enableModelcar as the string "true"', { enableModelcar: 'true' }],
    ['the newer enableOciModelSupport', { enableOciModelSupport: true }],
    ['ociModelMode modelcar (an explicit mode wins, as ResolveOciModelMode says)', { ociModelMode: 'modelcar', enableModelcar: false }],
  ])('are switched on by %s', (_name, section) => {
    expect(modelcar(section).enabled).toBe(true);
  });

  it('take the configured quantities and user', () => {
    expect(modelcar({ enableModelcar: true, cpuModelcar: '0.05', memoryModelcar: '1.5Gi', uidModelcar: 0 })).toEqual({ enabled: true, cpu: '0.05', memory: '1.5Gi', uid: 0 });
    expect(modelcar({ cpuModelcar: '100m', memoryModelcar: '64M', uidModelcar: 1000 })).toMatchObject({ cpu: '100m', memory: '64M', uid: 1000 });
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['ociModelMode native', { ociModelMode: 'native' }, "'ociModelMode' 'native' is a KServe mode kserve-ts does not have (supported: modelcar)"],
    ['ociModelMode fetch', { ociModelMode: 'fetch' }, "'ociModelMode' 'fetch' is a KServe mode kserve-ts does not have"],
    ['an unknown ociModelMode', { ociModelMode: 'sidecar' }, "'ociModelMode' 'sidecar' is not an OCI model mode"],
    ['a cpuModelcar that is no quantity', { cpuModelcar: 'ten' }, "'cpuModelcar' 'ten' is not a Kubernetes quantity"],
    ['a negative memoryModelcar', { memoryModelcar: '-15Mi' }, "'memoryModelcar' '-15Mi' is not a Kubernetes quantity"],
    ['a memoryModelcar with a unit typo', { memoryModelcar: '15MB' }, "'memoryModelcar' '15MB' is not a Kubernetes quantity"],
    ['a cpuModelcar number (KServe’s field is a string)', { cpuModelcar: 1 }, "'cpuModelcar' must be a string"],
    ['a uidModelcar string (Go’s *int64 refuses it too)', { uidModelcar: '1000' }, "'uidModelcar' must be a non-negative integer user id"],
    ['a negative uidModelcar', { uidModelcar: -1 }, "'uidModelcar' must be a non-negative integer user id"],
    ['a fractional uidModelcar', { uidModelcar: 1.5 }, "'uidModelcar' must be a non-negative integer user id"],
    ['an enableModelcar that is no boolean', { enableModelcar: 'yes' }, "'enableModelcar' must be a boolean"],
  ])('refuse %s at start-up, naming the key', (_name, section, message) => {
    expect(() => modelcar(section)).toThrow(ConfigError);
    expect(() => modelcar(section)).toThrow(`inferenceservice-config 'storageInitializer': ${message}`);
  });
});

/**
 * Optional features (cli/optional-package.ts): a package a feature needs and the project did
 * not install is one error naming it and the install command, with the range kserve-ts's
 * package.json accepts. The whole path (a fresh project without the optional packages) is
 * test/package/sdk-package.test.ts; here the pieces, with real imports.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { MissingPackageError, importFeature, isInstalled, requirePackage } from '../cli/optional-package.js';
import { ROOT } from './helpers/server.js';

const dir = mkdtempSync(path.join(tmpdir(), 'kserve-ts-optional-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const peers = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { peerDependencies: Record<string, string> }).peerDependencies;

/** A module that imports `spec`, for a real ERR_MODULE_NOT_FOUND from inside a feature. */
function moduleImporting(name: string, spec: string): string {
  const file = path.join(dir, `${name}.mjs`);
  writeFileSync(file, `import '${spec}';\nexport const loaded = true;\n`);
  return pathToFileURL(file).href;
}

describe('optional packages', () => {
  it('every optional peer dependency is installed in this repository (its devDependencies) and found', () => {
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      devDependencies: Record<string, string>;
      peerDependenciesMeta: Record<string, { optional?: boolean }>;
    };
    for (const name of Object.keys(peers)) {
      expect(pkg.peerDependenciesMeta[name]?.optional, name).toBe(true);
      if (name === '@tensorflow/tfjs-node') continue; // scripts/build-tfjs-node.sh installs it
      expect(pkg.devDependencies[name], name).toBe(peers[name]);
      expect(isInstalled(name), name).toBe(true);
    }
  });

  it('a package that is not installed: requirePackage throws one error naming it, its range and the hint', () => {
    expect(isInstalled('kserve-ts-no-such-package')).toBe(false);
    expect(() => requirePackage('kserve-ts-no-such-package', 'a feature')).toThrow(new MissingPackageError('kserve-ts-no-such-package', 'a feature'));
    const err = new MissingPackageError('onnxruntime-node', 'an ONNX model (the onnx backend)', 'with ONNXRUNTIME_NODE_INSTALL=skip where api.nuget.org is unreachable');
    expect(err.message).toBe(
      `an ONNX model (the onnx backend) needs the package onnxruntime-node, which is not installed: npm install onnxruntime-node@${peers['onnxruntime-node']} (with ONNXRUNTIME_NODE_INSTALL=skip where api.nuget.org is unreachable)`,
    );
    expect(new MissingPackageError('@kubernetes/client-node', 'kserve-ts controller').message).toContain(`npm install @kubernetes/client-node@${peers['@kubernetes/client-node']}`);
  });

  it('importFeature: a package missing anywhere in what the feature imports becomes MissingPackageError', async () => {
    const url = moduleImporting('feature', '@kserve-ts/no-such-sdk');
    const err = await importFeature('s3:// downloads', () => import(url)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MissingPackageError);
    expect((err as MissingPackageError).packageName).toBe('@kserve-ts/no-such-sdk');
    expect((err as Error).message).toBe('s3:// downloads needs the package @kserve-ts/no-such-sdk, which is not installed: npm install @kserve-ts/no-such-sdk');
  });

  it('importFeature: other failures pass through unchanged, and a feature that loads is returned', async () => {
    const missingFile = moduleImporting('broken', './not-there.mjs');
    const err = await importFeature('a feature', () => import(missingFile)).catch((e: unknown) => e);
    expect(err).not.toBeInstanceOf(MissingPackageError);
    expect((err as { code?: string }).code).toBe('ERR_MODULE_NOT_FOUND');
    await expect(importFeature('a feature', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    const ok = moduleImporting('ok', 'node:path');
    await expect(importFeature('a feature', () => import(ok) as Promise<{ loaded: boolean }>)).resolves.toMatchObject({ loaded: true });
  });
});

/**
 * Optional features and the packages they need. onnxruntime-node, TensorFlow, the cloud
 * storage SDKs and the Kubernetes client are optional peer dependencies of kserve-ts
 * (package.json): a project installs the ones it uses, and a custom model needs none. The
 * three programs ask for them here, where a feature starts, so a missing one is one error
 * naming the package and the command that installs it, not a module-resolution stack.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);

/** A feature's package is not installed. `code` lets callers tell it from other failures. */
export class MissingPackageError extends Error {
  readonly code = 'ERR_KSERVE_TS_MISSING_PACKAGE';
  constructor(
    readonly packageName: string,
    feature: string,
    hint?: string,
  ) {
    super(`${feature} needs the package ${packageName}, which is not installed: npm install ${installSpec(packageName)}${hint ? ` (${hint})` : ''}`);
    this.name = 'MissingPackageError';
  }
}

/**
 * `name@range` as kserve-ts's package.json declares the peer (npm refuses an optional peer
 * outside its range), or the bare name where that file is not at hand (the images stage
 * their own package.json).
 */
function installSpec(name: string): string {
  try {
    const own = require('kserve-ts/package.json') as { peerDependencies?: Record<string, string> };
    const range = own.peerDependencies?.[name];
    return range === undefined ? name : `${name}@${range}`;
  } catch {
    return name;
  }
}

/** Whether `name` resolves from this package, by Node's lookup (without loading it). */
export function isInstalled(name: string): boolean {
  return (require.resolve.paths(name) ?? []).some((dir) => existsSync(path.join(dir, name, 'package.json')));
}

/** Throws MissingPackageError unless `name` is installed: for a package loaded later, e.g. in a worker thread. */
export function requirePackage(name: string, feature: string, hint?: string): void {
  if (!isInstalled(name)) throw new MissingPackageError(name, feature, hint);
}

/** The package a failed import could not find, when that is why it failed. */
function missingPackageOf(err: unknown): string | undefined {
  const e = err as { code?: unknown; message?: unknown };
  if (e?.code !== 'ERR_MODULE_NOT_FOUND' || typeof e.message !== 'string') return undefined;
  return /^Cannot find package '([^']+)'/.exec(e.message)?.[1];
}

/**
 * Runs `load` (a dynamic import of a literal path at the call site, so the image builder's trace sees
 * it) and turns "cannot find package X" anywhere in what it imports into MissingPackageError.
 */
export async function importFeature<T>(feature: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (err) {
    const missing = missingPackageOf(err);
    if (missing === undefined) throw err;
    throw new MissingPackageError(missing, feature);
  }
}

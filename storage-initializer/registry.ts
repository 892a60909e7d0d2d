/**
 * Providers registered by URI scheme (the schemes of schemes.ts, registered by the CLI from
 * providers/index.ts), looked up once per URI. A string without a scheme is a local path
 * (`file`).
 */
import type { Config } from './config.js';
import { StorageError } from './errors.js';
import type { StorageProvider } from './provider.js';
import { STORAGE_HOST_ROUTES, providerKeyOf, schemeOf } from './schemes.js';

export { schemeOf };

/** Factories load their SDK lazily, so a run pays only for the schemes it uses. */
export type ProviderFactory = (config: Config) => Promise<StorageProvider>;

const factories = new Map<string, ProviderFactory>();

export function registerProvider(scheme: string, factory: ProviderFactory): void {
  factories.set(scheme.toLowerCase(), factory);
}


/** One provider instance per scheme and run, so connection pools are shared across URIs. */
export class ProviderSet {
  private readonly made = new Map<string, StorageProvider>();
  constructor(private readonly config: Config) {}

  async for(uri: string): Promise<StorageProvider> {
    const scheme = providerKeyOf(uri);
    const existing = this.made.get(scheme);
    if (existing) return existing;
    const factory = factories.get(scheme);
    if (!factory) {
      throw new StorageError('unsupported_scheme', `'${scheme}://' is not supported (supported: ${[...factories.keys()].filter((s) => s !== 'pvc' && !Object.hasOwn(STORAGE_HOST_ROUTES, s)).sort().map((s) => `${s}://`).join(', ')} and local paths)`, { uri });
    }
    let p: StorageProvider;
    try {
      p = await factory(this.config);
    } catch (err) {
      if (err instanceof StorageError) err.uri ??= uri;
      throw err;
    }
    this.made.set(scheme, p);
    return p;
  }

  close(): void {
    for (const p of this.made.values()) p.close?.();
    this.made.clear();
  }
}

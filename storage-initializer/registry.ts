/**
 * Providers registered by URI scheme (the schemes and host routes of schemes.ts), looked up
 * once per URI. A string without a scheme is a local path (`file`).
 *
 * The built-in providers (providers/index.ts) are registered by `registerBuiltInProviders`,
 * which every ProviderSet calls: the CLI and a program that embeds the download engine see
 * the same registry, with nothing to set up first. `registerProvider` adds or replaces one.
 */
import type { Config } from './config.js';
import { StorageError, errors } from './errors.js';
import type { StorageProvider } from './provider.js';
import { PROVIDER_LOADERS, type ProviderFactory } from './providers/index.js';
import { STORAGE_HOST_ROUTES, STORAGE_SCHEMES, providerKeyOf, schemeOf } from './schemes.js';

export { schemeOf };
export type { ProviderFactory };

const factories = new Map<string, ProviderFactory>();
let builtIns = false;

export function registerProvider(scheme: string, factory: ProviderFactory): void {
  factories.set(scheme.toLowerCase(), factory);
}

/** Registers every built-in provider once; a scheme registered before keeps its provider. */
export function registerBuiltInProviders(): void {
  if (builtIns) return;
  builtIns = true;
  for (const [key, load] of Object.entries(PROVIDER_LOADERS)) if (!factories.has(key)) factories.set(key, load);
}

/** Schemes a URI can name to be downloaded: not the host routes (they are https://), not pvc:// (mounted). */
function downloadedSchemes(): string[] {
  const mounted = (s: string): boolean => Object.hasOwn(STORAGE_SCHEMES, s) && 'mounted' in STORAGE_SCHEMES[s as keyof typeof STORAGE_SCHEMES];
  return [...factories.keys()].filter((s) => !mounted(s) && !Object.hasOwn(STORAGE_HOST_ROUTES, s)).sort();
}

/** One provider instance per scheme and run, so connection pools are shared across URIs. */
export class ProviderSet {
  private readonly made = new Map<string, StorageProvider>();
  constructor(private readonly config: Config) {
    registerBuiltInProviders();
  }

  async for(uri: string): Promise<StorageProvider> {
    const scheme = providerKeyOf(uri);
    const existing = this.made.get(scheme);
    if (existing) return existing;
    const factory = factories.get(scheme);
    if (!factory) throw errors.unsupportedScheme(scheme, downloadedSchemes(), uri);
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

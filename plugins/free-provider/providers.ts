// The free provider list: read once from the repository's data folder, looked up by exact domain or documented parent.
import { readDataFile } from '../plugin-data.js';

export type ProviderGroup = 'common' | 'rare';

export interface ProviderEntry {
  group: ProviderGroup;
  name: string;
  domains: string[];
  /** Parents whose every subdomain is this provider's, as it documents (rr.com: nc.rr.com, socal.rr.com). */
  subdomains_of?: string[];
}

export interface Provider {
  key: string;
  group: ProviderGroup;
}

export function readProviders(): Record<string, ProviderEntry> {
  return JSON.parse(readDataFile('free-provider', 'providers.json')) as Record<string, ProviderEntry>;
}

export interface ProviderIndex {
  /** Domain -> its provider, for every domain of every key. */
  byDomain: Map<string, Provider>;
  /** Parent domain -> the provider whose subdomains it hands out. */
  byParent: Map<string, Provider>;
}

export function indexProviders(providers: Record<string, ProviderEntry>): ProviderIndex {
  const byDomain = new Map<string, Provider>();
  const byParent = new Map<string, Provider>();
  for (const [key, entry] of Object.entries(providers)) {
    const provider = { key, group: entry.group };
    for (const domain of entry.domains) byDomain.set(domain, provider);
    for (const parent of entry.subdomains_of ?? []) byParent.set(parent, provider);
  }
  return { byDomain, byParent };
}

/** The provider of an ASCII domain: a listed domain, or a host under a parent whose subdomains a provider hands out. */
export function findProvider(index: ProviderIndex, domain: string): Provider | undefined {
  const exact = index.byDomain.get(domain);
  if (exact !== undefined || index.byParent.size === 0) return exact;
  for (let dot = domain.indexOf('.'); dot >= 0; dot = domain.indexOf('.', dot + 1)) {
    const provider = index.byParent.get(domain.slice(dot + 1));
    if (provider !== undefined) return provider;
  }
  return undefined;
}

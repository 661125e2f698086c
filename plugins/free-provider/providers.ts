// The free provider list: read once from the repository's data folder, looked up by exact domain.
import { readDataFile } from '../plugin-data.js';

export type ProviderGroup = 'common' | 'rare';

export interface ProviderEntry {
  group: ProviderGroup;
  name: string;
  domains: string[];
}

export interface Provider {
  key: string;
  group: ProviderGroup;
}

export function readProviders(): Record<string, ProviderEntry> {
  return JSON.parse(readDataFile('free-provider', 'providers.json')) as Record<string, ProviderEntry>;
}

/** Domain -> its provider, for every domain of every key. */
export function indexProviders(providers: Record<string, ProviderEntry>): Map<string, Provider> {
  const byDomain = new Map<string, Provider>();
  for (const [key, entry] of Object.entries(providers)) {
    for (const domain of entry.domains) byDomain.set(domain, { key, group: entry.group });
  }
  return byDomain;
}

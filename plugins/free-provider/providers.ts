// The free provider list: read once from the repository's data folder, looked up by exact domain.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

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

/** The folder holding package.json: this module runs from plugins/ (tests) and from dist/plugins/ (built). */
function packageRoot(): string {
  const start = dirname(fileURLToPath(import.meta.url));
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${start}`);
  }
}

export function readProviders(): Record<string, ProviderEntry> {
  return JSON.parse(readFileSync(join(packageRoot(), 'plugins', 'free-provider', 'data', 'providers.json'), 'utf8')) as Record<string, ProviderEntry>;
}

/** Domain -> its provider, for every domain of every key. */
export function indexProviders(providers: Record<string, ProviderEntry>): Map<string, Provider> {
  const byDomain = new Map<string, Provider>();
  for (const [key, entry] of Object.entries(providers)) {
    for (const domain of entry.domains) byDomain.set(domain, { key, group: entry.group });
  }
  return byDomain;
}

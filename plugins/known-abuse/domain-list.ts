// Domain lists of this plugin: read once from the repository's data folder, looked up by a domain and its parents.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folder holding package.json: this module runs from plugins/ (tests) and from dist/plugins/ (built). */
function packageRoot(): string {
  const start = dirname(fileURLToPath(import.meta.url));
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${start}`);
  }
}

/** One lower-case domain per line; blank lines and lines starting with # are skipped. */
export function parseDomainList(text: string): Set<string> {
  const domains = new Set<string>();
  for (const line of text.split('\n')) {
    const domain = line.trim().toLowerCase();
    if (domain !== '' && !domain.startsWith('#')) domains.add(domain);
  }
  return domains;
}

export function readDomainList(file: string): Set<string> {
  return parseDomainList(readFileSync(join(packageRoot(), 'plugins', 'known-abuse', 'data', file), 'utf8'));
}

/**
 * `domain`, then each parent of it up to `registrable` (`a.b.example.co.uk`, `b.example.co.uk`,
 * `example.co.uk`); the domain alone when `registrable` is not a suffix of it.
 */
export function domainAndParents(domain: string, registrable: string | null): string[] {
  const names = [domain];
  if (registrable === null || !domain.endsWith(`.${registrable}`)) return names;
  for (let name = domain; name !== registrable; ) {
    name = name.slice(name.indexOf('.') + 1);
    names.push(name);
  }
  return names;
}

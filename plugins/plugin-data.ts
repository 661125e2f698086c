// What every plugin with a list needs, in one place: reading its own data files (once, at module load)
// and walking a domain's parents. Not a plugin and not the contract: a plugin may import this module and
// nothing else of its neighbours.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PluginContext } from '../src/engine/plugin.js';

/** The folder holding package.json: plugins run from plugins/ (tests) and from dist/plugins/ (built). */
function packageRoot(): string {
  const start = dirname(fileURLToPath(import.meta.url));
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${start}`);
  }
}

/** The text of plugins/<pluginId>/data/<file>. */
export function readDataFile(pluginId: string, file: string): string {
  return readFileSync(join(packageRoot(), 'plugins', pluginId, 'data', file), 'utf8');
}

/** One name per line, trimmed and lower-cased; blank lines and lines starting with # are skipped. */
export function parseList(text: string): Set<string> {
  const names = new Set<string>();
  for (const line of text.split('\n')) {
    const name = line.trim().toLowerCase();
    if (name !== '' && !name.startsWith('#')) names.add(name);
  }
  return names;
}

/** A list file of plugins/<pluginId>/data/ as a set (see parseList). */
export function readList(pluginId: string, file: string): Set<string> {
  return parseList(readDataFile(pluginId, file));
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

/** `domain` and every parent of it, down to the top-level label (`a.b.gov.uk`, `b.gov.uk`, `gov.uk`, `uk`). */
export function selfAndParents(domain: string): string[] {
  const names = [domain];
  for (let dot = domain.indexOf('.'); dot >= 0; dot = domain.indexOf('.', dot + 1)) names.push(domain.slice(dot + 1));
  return names;
}

const MAX_DOMAIN_LENGTH = 253;

/** The ASCII domain without its root dot, or null when it is no host name (empty label, non-ASCII, too long). */
export function asciiHostName(domain: string): string | null {
  const name = domain.endsWith('.') ? domain.slice(0, -1) : domain;
  if (name === '' || name.length > MAX_DOMAIN_LENGTH || name.startsWith('.') || name.includes('..')) return null;
  for (let i = 0; i < name.length; i++) if (name.charCodeAt(i) > 0x7f) return null;
  return name;
}

/**
 * The address's domain as an ASCII host name to look up in a list (its punycode form for an IDN), or
 * null when there is none: no domain, an address literal, or no valid host name.
 */
export async function asciiDomainOf(ctx: PluginContext): Promise<string | null> {
  const domain = await ctx.fact<string>('domain');
  const literal = await ctx.fact<string>('domain_literal');
  if (typeof domain !== 'string' || literal !== null) return null;
  return asciiHostName((await ctx.fact<string>('punycode_value')) ?? domain);
}

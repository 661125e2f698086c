// What every plugin with a list needs, in one place: reading its own data files (once, at module load)
// and the domain to look up. Not a plugin and not the contract: a plugin may import this module and
// nothing else of its neighbours.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DataList, PluginContext } from '../src/engine/plugin.js';
import { hostName, type LabelRule } from '../src/host-name.js';
import { packageRoot } from '../src/paths.js';

/** The text of plugins/<pluginId>/data/<file>. */
export function readDataFile(pluginId: string, file: string): string {
  return readDataBytes(pluginId, file).toString('utf8');
}

/** The bytes of plugins/<pluginId>/data/<file> (a packed table). */
export function readDataBytes(pluginId: string, file: string): Buffer {
  return readFileSync(join(packageRoot, 'plugins', pluginId, 'data', file));
}

/**
 * Where a plugin keeps what it compiled from its data between starts (node_modules/.cache/email-trust, the
 * folder tools conventionally cache in): each plugin names its files by a hash of their inputs, and reads
 * them only when that matches, so the folder can be deleted at any time.
 */
export function pluginCacheDir(): string {
  return join(packageRoot, 'node_modules', '.cache', 'email-trust');
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

// One set per file for the process: disposable-infrastructure reads disposable's 43k domains, held once.
const lists = new Map<string, ReadonlySet<string>>();

/** A list file of plugins/<pluginId>/data/ as a set (see parseList), read once and shared by every reader. */
export function readList(pluginId: string, file: string): ReadonlySet<string> {
  const key = `${pluginId}/${file}`;
  let list = lists.get(key);
  if (!list) {
    list = parseList(readDataFile(pluginId, file));
    lists.set(key, list);
  }
  return list;
}

const SOURCE_COLUMNS = ['file', 'source', 'license', 'date'] as const;

/**
 * The `| File | Source | License | Date |` table of plugins/<pluginId>/data/SOURCE.md, by file: the one
 * place a list's origin is written, read by people and by `email-trust data`. Throws when the table is
 * missing or malformed, so a plugin whose metadata is broken fails at load, in its own test.
 */
export function readSources(pluginId: string): Map<string, Omit<DataList, 'entries' | 'name'>> {
  const lines = readDataFile(pluginId, 'SOURCE.md').split('\n');
  const cells = (line: string) =>
    line
      .trim()
      .replace(/^\||\|$/g, '')
      .split('|')
      .map((cell) => cell.trim().replace(/^`|`$/g, ''));
  const headerAt = lines.findIndex(
    (line) =>
      line.trim().startsWith('|') &&
      cells(line)
        .map((c) => c.toLowerCase())
        .join() === SOURCE_COLUMNS.join(),
  );
  if (headerAt < 0) throw new Error(`plugins/${pluginId}/data/SOURCE.md: no "| File | Source | License | Date |" table`);
  const sources = new Map<string, Omit<DataList, 'entries' | 'name'>>();
  for (const line of lines.slice(headerAt + 2)) {
    if (!line.trim().startsWith('|')) break;
    const [file, source, license, date] = cells(line);
    if (!file || !source || !license || !date || !/^\d{4}-\d{2}-\d{2}$/.test(date)) {
      throw new Error(`plugins/${pluginId}/data/SOURCE.md: bad row "${line.trim()}" (file, source, license and a YYYY-MM-DD date)`);
    }
    sources.set(file, { source, license, date });
  }
  return sources;
}

/** The plugin's `data` declaration: each loaded file with its entry count and its SOURCE.md row. */
export function dataLists(pluginId: string, loaded: readonly { file: string; entries: number | null }[]): DataList[] {
  const sources = readSources(pluginId);
  return loaded.map(({ file, entries }) => {
    const row = sources.get(file);
    if (!row) throw new Error(`plugins/${pluginId}/data/SOURCE.md: no row for ${file}`);
    return { name: file, ...row, entries };
  });
}

/**
 * The address's domain as an ASCII host name (its punycode form for an IDN), lower-cased, without a root
 * dot: the one way a plugin gets the name to look up in a list or ask the network about. Null when there
 * is none: no domain, an address literal, or not a host name under `rule` (default `any`: ASCII without
 * empty labels; `dns` for a name the resolver can be asked about); trailing spaces are not part of it.
 * Reads structure's and idn's facts (a plugin calling it declares them in `needs`).
 */
export async function asciiDomainOf(ctx: PluginContext, rule: LabelRule = 'any'): Promise<string | null> {
  // All three read, whatever the first ones say: the plugins behind them run for every caller alike.
  const domain = await ctx.fact('domain');
  const literal = await ctx.fact('domain_literal');
  const punycode = await ctx.fact('punycode_value');
  if (typeof domain !== 'string' || literal !== null) return null;
  // An address wrapped in spaces (a form that did not trim) is invalid, but its domain is still the one meant:
  // the classifications describe it, so that the typo check's guard knows a real provider behind the spaces.
  return hostName((typeof punycode === 'string' ? punycode : domain).trimEnd(), rule);
}

// What every plugin with a list needs, in one place: reading its own data files (once, at module load)
// and the domain to look up. Not a plugin and not the contract: a plugin may import this module and
// nothing else of its neighbours.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { dataDir } from '../src/config.js';
import { readInstalled, sha256Hex } from '../src/data-lists.js';
import type { DataList, DataUpstream, InstalledList, PluginContext } from '../src/engine/plugin.js';
import { hostName, type LabelRule } from '../src/host-name.js';
import { packageRoot } from '../src/paths.js';

// The installed updates this process loaded, by `<plugin>/<file>`: `email-trust data` says which lists are not the shipped ones.
const installedLoaded = new Map<string, InstalledList>();

/**
 * The text of a list of plugins/<pluginId>/data/: the update `email-trust data update` installed in DATA_DIR
 * when there is a whole one (src/data-lists.ts), else the shipped file, which stays the fallback.
 */
export function readDataFile(pluginId: string, file: string): string {
  const installed = readInstalled(dataDir(), pluginId, file);
  if (installed) {
    installedLoaded.set(`${pluginId}/${file}`, installed.meta);
    return installed.text;
  }
  installedLoaded.delete(`${pluginId}/${file}`);
  return readShippedFile(pluginId, file);
}

/** The text of plugins/<pluginId>/data/<file> as shipped (notes such as SOURCE.md, never replaced). */
export function readShippedFile(pluginId: string, file: string): string {
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

// One set per file for the process: disposable-infrastructure reads disposable's 43k domains, held once;
// with the checksum of the text it was read from, for reloadList.
const lists = new Map<string, { set: Set<string>; sha256: string }>();

/** A list file of plugins/<pluginId>/data/ as a set (see parseList), read once and shared by every reader. */
export function readList(pluginId: string, file: string): ReadonlySet<string> {
  const key = `${pluginId}/${file}`;
  let list = lists.get(key);
  if (!list) {
    const text = readDataFile(pluginId, file);
    list = { set: parseList(text), sha256: sha256Hex(text) };
    lists.set(key, list);
  }
  return list.set;
}

/**
 * Reads a list of readList's again (an install in DATA_DIR, else the shipped file) and, when its text changed,
 * replaces the shared set's entries with the new ones in one synchronous step, so every reader holds the new
 * list and no request sees a mix. True when it changed. Synchronous: about 20 ms for the 43k disposable domains.
 */
export function reloadList(pluginId: string, file: string): boolean {
  const list = lists.get(`${pluginId}/${file}`);
  if (!list) return false;
  const text = readDataFile(pluginId, file);
  const sha256 = sha256Hex(text);
  if (sha256 === list.sha256) return false;
  const entries = parseList(text);
  list.set.clear();
  for (const entry of entries) list.set.add(entry);
  list.sha256 = sha256;
  return true;
}

const SOURCE_COLUMNS = ['file', 'source', 'license', 'date'] as const;

/**
 * The `| File | Source | License | Date |` table of plugins/<pluginId>/data/SOURCE.md, by file: the one
 * place a list's origin is written, read by people and by `email-trust data`. Throws when the table is
 * missing or malformed, so a plugin whose metadata is broken fails at load, in its own test.
 */
export function readSources(pluginId: string): Map<string, Omit<DataList, 'entries' | 'name'>> {
  const table = markdownTable(pluginId, SOURCE_COLUMNS);
  if (table === null) throw new Error(`plugins/${pluginId}/data/SOURCE.md: no "| File | Source | License | Date |" table`);
  const sources = new Map<string, Omit<DataList, 'entries' | 'name'>>();
  for (const { line, cells } of table) {
    const [file, source, license, date] = cells;
    if (!file || !source || !license || !date || !/^\d{4}-\d{2}-\d{2}$/.test(date)) {
      throw new Error(`plugins/${pluginId}/data/SOURCE.md: bad row "${line}" (file, source, license and a YYYY-MM-DD date)`);
    }
    sources.set(file, { source, license, date });
  }
  return sources;
}

/**
 * The rows of the table of plugins/<pluginId>/data/SOURCE.md whose header is `columns` (compared lower-cased),
 * each as its trimmed line and its cells (backticks around a cell dropped); null when the page has no such table.
 */
function markdownTable(pluginId: string, columns: readonly string[]): Array<{ line: string; cells: string[] }> | null {
  const lines = readShippedFile(pluginId, 'SOURCE.md').split('\n');
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
        .join() === columns.join(),
  );
  if (headerAt < 0) return null;
  const rows: Array<{ line: string; cells: string[] }> = [];
  for (const line of lines.slice(headerAt + 2)) {
    if (!line.trim().startsWith('|')) break;
    rows.push({ line: line.trim(), cells: cells(line) });
  }
  return rows;
}

/** A row of the optional `| File | Upstream | Format | Max age |` table of SOURCE.md: a maintained upstream, or why there is none. */
export type UpstreamRow = { urls: string[]; format: string; maxAgeDays: number } | { none: string };

const UPSTREAM_COLUMNS = ['file', 'upstream', 'format', 'max age'] as const;

/**
 * The Upstreams table of plugins/<pluginId>/data/SOURCE.md, by file: the URLs `email-trust data update`
 * fetches (space-separated, in order), their published format and the list's maximum age (`1 day`, `7 days`),
 * or `none: <why>`. Empty when the page has no such table; throws on a malformed row.
 */
export function readUpstreams(pluginId: string): Map<string, UpstreamRow> {
  const rows = new Map<string, UpstreamRow>();
  for (const { line, cells } of markdownTable(pluginId, UPSTREAM_COLUMNS) ?? []) {
    const [file = '', upstream = '', format = '', maxAge = ''] = cells;
    const bad = () => new Error(`plugins/${pluginId}/data/SOURCE.md: bad upstream row "${line}" (file, URLs or "none: why", format, "N days")`);
    if (upstream.startsWith('none:')) {
      if (file === '' || upstream.slice(5).trim() === '') throw bad();
      rows.set(file, { none: upstream.slice(5).trim() });
      continue;
    }
    const urls = upstream.split(/\s+/).map((url) => url.replace(/^`|`$/g, ''));
    const days = /^(\d+) days?$/.exec(maxAge);
    if (file === '' || format === '' || !days || !urls.every((url) => /^https:\/\/\S+$/.test(url))) throw bad();
    rows.set(file, { urls, format, maxAgeDays: Number(days[1]) });
  }
  return rows;
}

/** Compiles one list from its upstream's bodies (in its URLs' order): the plugin's parser of a format and its guard. */
export type UpstreamCompiler = DataUpstream['compile'];

/**
 * The plugin's `data` declaration: each loaded file with its entry count, its SOURCE.md row, its upstream (with
 * the plugin's compiler for that upstream's format, from `formats`), and the update it loaded, if any. Throws
 * when SOURCE.md names a format the plugin has no compiler for, so the declaration cannot promise an update
 * that cannot be parsed.
 */
export function dataLists(
  pluginId: string,
  loaded: readonly { file: string; entries: number | null }[],
  formats: Readonly<Record<string, UpstreamCompiler>> = {},
): DataList[] {
  const sources = readSources(pluginId);
  const upstreams = readUpstreams(pluginId);
  return loaded.map(({ file, entries }) => {
    const row = sources.get(file);
    if (!row) throw new Error(`plugins/${pluginId}/data/SOURCE.md: no row for ${file}`);
    const list: DataList = { name: file, ...row, entries };
    const upstream = upstreams.get(file);
    if (upstream === undefined) list.noUpstream = `no maintained upstream in SOURCE.md (source: ${row.source})`;
    else if ('none' in upstream) list.noUpstream = upstream.none;
    else {
      const compile = formats[upstream.format];
      if (!compile) throw new Error(`plugins/${pluginId}/data/SOURCE.md: ${file}'s format "${upstream.format}" has no parser in the plugin`);
      list.upstream = { ...upstream, compile } satisfies DataUpstream;
    }
    const installed = installedLoaded.get(`${pluginId}/${file}`);
    if (installed) list.installed = installed;
    return list;
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

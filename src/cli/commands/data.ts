// `email-trust data`: every data list the checks load, with its source, license, date, entry count, where it
// was loaded from (shipped, or updated by `data update`), its age and its maximum age, from the plugins' own
// declarations (each filled from its data/SOURCE.md); `data update` fetches the lists that have an upstream.
// This command knows no list by name.
import type { Command } from 'commander';
import { registry } from '../../../plugins/index.js';
import { loadConfig } from '../../config.js';
import type { DataList, Plugin } from '../../engine/plugin.js';
import { dataAge } from '../../service/data-age.js';
import { type UpdateResult, type UpdateTarget, updateLists } from '../../service/data-update.js';
import { UsageError } from '../errors.js';

export interface DataRow {
  plugin: string;
  name: string;
  source: string;
  license: string;
  date: string;
  entries: number | null;
  /** `shipped`: the file of the package; `updated`: the one `data update` installed in DATA_DIR. */
  origin: 'shipped' | 'updated';
  /** When the installed update was fetched (ISO 8601); null for a shipped list. */
  updated_at: string | null;
  /** Whole days since the data's snapshot date (shipped) or its fetch (updated). */
  age_days: number;
  /** How old the list may grow (its upstream's); null without an upstream. */
  max_age_days: number | null;
  /** Older than its maximum age; null without one. */
  stale: boolean | null;
  /** The URLs `data update` fetches; null when it skips the list. */
  upstream: readonly string[] | null;
}

/** One row per list, in registry order. */
export function dataRows(plugins: readonly Plugin[], now = Date.now()): DataRow[] {
  return plugins.flatMap((plugin) => (plugin.data ?? []).map((list) => dataRow(plugin.id, list, now)));
}

function dataRow(plugin: string, list: DataList, now: number): DataRow {
  const age = dataAge(list, now);
  return {
    plugin,
    name: list.name,
    source: list.source,
    license: list.license,
    date: list.date,
    entries: list.entries,
    origin: list.installed ? 'updated' : 'shipped',
    updated_at: list.installed?.fetchedAt ?? null,
    age_days: age.ageDays,
    max_age_days: age.maxAgeDays,
    stale: age.stale,
    upstream: list.upstream?.urls ?? null,
  };
}

interface Column<T> {
  title: string;
  cell: (row: T) => string;
  right?: boolean;
}

const DATA_COLUMNS: readonly Column<DataRow>[] = [
  { title: 'PLUGIN', cell: (r) => r.plugin },
  { title: 'LIST', cell: (r) => r.name },
  { title: 'ENTRIES', cell: (r) => (r.entries === null ? '-' : String(r.entries)), right: true },
  { title: 'DATE', cell: (r) => r.date },
  { title: 'ORIGIN', cell: (r) => (r.updated_at === null ? r.origin : `updated ${r.updated_at.slice(0, 16)}Z`) },
  { title: 'AGE', cell: (r) => `${r.age_days}d${r.stale ? ' stale' : ''}`, right: true },
  { title: 'MAX', cell: (r) => (r.max_age_days === null ? '-' : `${r.max_age_days}d`), right: true },
  { title: 'LICENSE', cell: (r) => r.license },
  { title: 'SOURCE', cell: (r) => r.source },
];

const UPDATE_COLUMNS: readonly Column<UpdateResult>[] = [
  { title: 'PLUGIN', cell: (r) => r.plugin },
  { title: 'LIST', cell: (r) => r.list },
  { title: 'OUTCOME', cell: (r) => r.outcome },
  { title: 'ENTRIES', cell: (r) => `${r.previous ?? '-'} -> ${r.entries ?? '-'}`, right: true },
  { title: 'REASON', cell: (r) => r.reason ?? '-' },
];

/** Aligned columns, the last one unpadded. */
function table<T>(columns: readonly Column<T>[], rows: readonly T[]): string {
  const cells = [columns.map((c) => c.title), ...rows.map((row) => columns.map((c) => c.cell(row)))];
  const widths = columns.map((_, i) => Math.max(...cells.map((line) => (line[i] ?? '').length)));
  const lines = cells.map((line) =>
    line
      .map((cell, i) => {
        if (i === columns.length - 1) return cell;
        const width = widths[i] ?? 0;
        return columns[i]?.right ? cell.padStart(width) : cell.padEnd(width);
      })
      .join('  '),
  );
  return `${lines.join('\n')}\n`;
}

export const dataTable = (rows: readonly DataRow[]): string => table(DATA_COLUMNS, rows);

/** The lists named (`tor-exits.txt` or `ip-intelligence/tor-exits.txt`), or every list when none is. */
export function updateTargets(plugins: readonly Plugin[], names: readonly string[]): UpdateTarget[] {
  const all = plugins.flatMap((plugin) => (plugin.data ?? []).map((list) => ({ plugin: plugin.id, list })));
  if (names.length === 0) return all;
  return names.map((name) => {
    const found = all.filter((t) => t.list.name === name || `${t.plugin}/${t.list.name}` === name);
    if (found.length !== 1) {
      throw new UsageError(
        found.length === 0 ? `no data list named "${name}"; see \`email-trust data\`` : `"${name}" names ${found.length} lists; write plugin/list`,
      );
    }
    return found[0] as UpdateTarget;
  });
}

export function addDataCommand(program: Command): void {
  const data = program
    .command('data')
    .description('list every data list the checks load: source, date, license, entries, shipped or updated, age and maximum age (--json for machines)')
    .option('--json', 'print [{plugin, name, source, license, date, entries, origin, updated_at, age_days, max_age_days, stale, upstream}]', false)
    .action((opts: { json: boolean }) => {
      const rows = dataRows(registry);
      if (opts.json) console.log(JSON.stringify(rows, null, 2));
      else process.stdout.write(dataTable(rows));
    });
  data
    .command('update')
    .description('fetch each named list (default: all) from its upstream, check it, and install it in DATA_DIR; a refused one keeps its last good list')
    .argument('[lists...]', 'list names (tor-exits.txt) or plugin/list')
    .option('--dry-run', 'fetch, parse and check, but install nothing', false)
    .option('--json', 'print [{plugin, list, outcome, reason, urls, previous, entries}]', false)
    .action(async (names: string[], _opts: unknown, command: Command) => {
      // `data` has --json too: commander gives it the flag wherever it stands, so both are read.
      const opts = command.optsWithGlobals<{ dryRun: boolean; json: boolean }>();
      const config = loadConfig();
      const results = await updateLists(updateTargets(registry, names), { ...config.data, dryRun: opts.dryRun });
      if (opts.json) console.log(JSON.stringify(results, null, 2));
      else process.stdout.write(table(UPDATE_COLUMNS, results));
      const refused = results.filter((r) => r.outcome === 'refused').length;
      if (refused > 0) throw new Error(`${refused} of ${results.length} lists refused; each keeps its last good list (the reasons above)`);
    });
}

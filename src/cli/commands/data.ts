// `email-trust data`: every data list the checks load, with its source, license, date and entry count,
// from the plugins' own declarations (each filled from its data/SOURCE.md): this command knows no list.
import type { Command } from 'commander';
import { registry } from '../../../plugins/index.js';
import type { DataList, Plugin } from '../../engine/plugin.js';

export interface DataRow extends DataList {
  plugin: string;
}

/** One row per list, in registry order. */
export function dataRows(plugins: readonly Plugin[]): DataRow[] {
  return plugins.flatMap((plugin) => (plugin.data ?? []).map((list) => ({ plugin: plugin.id, ...list })));
}

const COLUMNS: readonly { title: string; cell: (row: DataRow) => string; right?: boolean }[] = [
  { title: 'PLUGIN', cell: (r) => r.plugin },
  { title: 'LIST', cell: (r) => r.name },
  { title: 'ENTRIES', cell: (r) => (r.entries === null ? '-' : String(r.entries)), right: true },
  { title: 'DATE', cell: (r) => r.date },
  { title: 'LICENSE', cell: (r) => r.license },
  { title: 'SOURCE', cell: (r) => r.source },
];

/** Aligned columns, the source last and unpadded. */
export function dataTable(rows: readonly DataRow[]): string {
  const cells = [COLUMNS.map((c) => c.title), ...rows.map((row) => COLUMNS.map((c) => c.cell(row)))];
  const widths = COLUMNS.map((_, i) => Math.max(...cells.map((line) => (line[i] ?? '').length)));
  const lines = cells.map((line) =>
    line
      .map((cell, i) => {
        if (i === COLUMNS.length - 1) return cell;
        const width = widths[i] ?? 0;
        return COLUMNS[i]?.right ? cell.padStart(width) : cell.padEnd(width);
      })
      .join('  '),
  );
  return `${lines.join('\n')}\n`;
}

export function addDataCommand(program: Command): void {
  program
    .command('data')
    .description('list every data list the checks load, with source, date, license and entry count (a table; --json for machines)')
    .option('--json', 'print [{plugin, name, source, license, date, entries}] as JSON', false)
    .action((opts: { json: boolean }) => {
      const rows = dataRows(registry);
      if (opts.json) console.log(JSON.stringify(rows, null, 2));
      else process.stdout.write(dataTable(rows));
    });
}

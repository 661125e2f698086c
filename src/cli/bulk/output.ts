// The result file of a bulk run, CSV or JSON Lines by its extension: one row per input record, in input
// order, with the input's columns, its line number and the verdict. A run continues an existing file: the
// rows already there are the records already done (a last row cut short by a kill is dropped). A CSV cell
// that a spreadsheet would run as a formula is escaped; JSON Lines are written as they are.

import { once } from 'node:events';
import { createWriteStream, existsSync, readFileSync, truncateSync, type WriteStream } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import type { BulkResult } from '../../service/bulk-verify.js';
import { UsageError } from '../errors.js';
import type { InputRecord } from './input.js';

export type OutputFormat = 'csv' | 'jsonl';

/**
 * A cell starting with =, +, -, @, a tab or a carriage return (or a full-width =, +, -, @) gets a leading `'`, as
 * OWASP's CSV-injection guidance says: the caller's columns and corrected_email come from untrusted addresses.
 */
const CSV_OPTIONS = { escape_formulas: true } as const;

/** Result columns every output has, whatever the policy enables; the policy's flags and fields follow. */
const FIXED_RESULT_COLUMNS = ['action', 'errors', 'warnings', 'corrected_email', 'risk_score', 'risk_level'];

export function outputFormatOf(file: string): OutputFormat {
  if (/\.csv$/i.test(file)) return 'csv';
  if (/\.jsonl$/i.test(file)) return 'jsonl';
  throw new UsageError(`${file}: the result file must end in .csv or .jsonl`);
}

export interface OutputColumns {
  /** Output name of each input column, in input order (an input column named like a result gets `input_`). */
  input: [string, string][];
  /** Result columns, after `line`. */
  results: string[];
  /** Every column of the CSV header. */
  header: string[];
}

export function outputColumns(inputHeader: readonly string[], policyFields: readonly string[]): OutputColumns {
  const results = [...new Set([...FIXED_RESULT_COLUMNS, ...policyFields])];
  const taken = new Set([...results, 'line', 'input_error']);
  const input = inputHeader.map((name): [string, string] => [name, taken.has(name) ? `input_${name}` : name]);
  return { input, results, header: [...input.map(([, out]) => out), 'line', ...results, 'input_error'] };
}

/** What an existing result file already holds. */
export interface DoneSoFar {
  rows: number;
  /** Rows by action; records that could not be verified count under `bad input`. */
  byAction: Map<string, number>;
  /** The `line` of the last row: the input line the next run must follow. */
  lastLine: number;
}

export const BAD_INPUT = 'bad input';

/** Reads an existing result file to continue it; refuses one written for other columns. */
export function readDone(file: string, format: OutputFormat, columns: OutputColumns): DoneSoFar {
  const done: DoneSoFar = { rows: 0, byAction: new Map(), lastLine: 0 };
  if (!existsSync(file)) return done;
  let text = readFileSync(file, 'utf8');
  const end = text.lastIndexOf('\n') + 1;
  if (end < text.length) {
    // A row cut short (the process was killed while writing): drop it, it is done again.
    truncateSync(file, Buffer.byteLength(text.slice(0, end)));
    text = text.slice(0, end);
  }
  if (text === '') return done;
  const rows: Record<string, unknown>[] =
    format === 'csv' ? csvRows(file, text, columns) : text.split('\n').flatMap((line, i) => (line === '' ? [] : [jsonRow(file, line, i + 1)]));
  for (const row of rows) {
    done.rows += 1;
    const action = typeof row.action === 'string' && row.action !== '' ? row.action : BAD_INPUT;
    done.byAction.set(action, (done.byAction.get(action) ?? 0) + 1);
    done.lastLine = Number(row.line);
  }
  return done;
}

function csvRows(file: string, text: string, columns: OutputColumns): Record<string, unknown>[] {
  const [header, ...rows] = parse(text, { bom: true }) as string[][];
  const written = (parse(stringify([columns.header], CSV_OPTIONS)) as string[][])[0] as string[];
  if (!header || header.join('\u0000') !== written.join('\u0000')) {
    throw new UsageError(`${file} exists with other columns than this run writes; give another --out, or --restart to overwrite it`);
  }
  const line = header.indexOf('line');
  const action = header.indexOf('action');
  return rows.map((row) => ({ line: row[line], action: row[action] }));
}

function jsonRow(file: string, text: string, number: number): Record<string, unknown> {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new UsageError(`${file}:${number}: not a JSON line; give another --out, or --restart to overwrite it`);
  }
}

/** Rows held before one write: a run killed outright loses at most these, and does them again. */
const ROWS_PER_WRITE = 256;

/** Appends result rows to the file (a CSV header first when the file is new or empty). */
export class ResultWriter {
  private readonly stream: WriteStream;
  private pending: Record<string, unknown>[] = [];

  constructor(
    file: string,
    private readonly format: OutputFormat,
    private readonly columns: OutputColumns,
    fresh: boolean,
  ) {
    this.stream = createWriteStream(file, { flags: fresh ? 'w' : 'a' });
    if (fresh && format === 'csv') this.stream.write(stringify([columns.header], CSV_OPTIONS));
  }

  async write(result: BulkResult<InputRecord>): Promise<void> {
    this.pending.push(this.rowOf(result));
    if (this.pending.length >= ROWS_PER_WRITE) await this.flush();
  }

  async close(): Promise<void> {
    await this.flush();
    this.stream.end();
    await once(this.stream, 'finish');
  }

  private async flush(): Promise<void> {
    if (this.pending.length === 0) return;
    const rows = this.pending;
    this.pending = [];
    const text =
      this.format === 'csv'
        ? stringify(
            rows.map((row) => this.columns.header.map((name) => csvCell(row[name]))),
            CSV_OPTIONS,
          )
        : rows.map((row) => `${JSON.stringify(row)}\n`).join('');
    if (!this.stream.write(text)) await once(this.stream, 'drain');
  }

  private rowOf({ record, response, problem }: BulkResult<InputRecord>): Record<string, unknown> {
    const row: Record<string, unknown> = {};
    for (const [name, out] of this.columns.input) row[out] = record.columns[name] ?? null;
    row.line = record.line;
    if (response) {
      if (this.format === 'jsonl') Object.assign(row, response);
      else for (const name of this.columns.results) row[name] = response[name];
    } else {
      row.action = null;
    }
    if (problem) row.input_error = problem;
    return row;
  }
}

/** A CSV cell: lists joined by spaces (codes never hold one), objects as JSON, nothing for null. */
function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.join(' ');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

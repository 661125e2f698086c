// The list a bulk run reads: a CSV file with a header (the address in one named column), or a text file
// with one address per line. Every record comes with its line number; a record that cannot be read (a
// malformed CSV line, an empty address) is yielded with its problem, never fatal. A quote never closed
// makes the rest of the file one field: it is reported with the lines it spans and the records it swallowed.
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import { type CsvError, type Options, parse } from 'csv-parse';
import type { BulkItem } from '../../service/bulk-verify.js';
import { UsageError } from '../errors.js';
import { fmt } from './progress.js';

/** verify's own limit on email_address (schemas/verify-request.schema.json). */
const MAX_ADDRESS_LENGTH = 1024;

export interface InputRecord {
  /** The line of the input file the record starts on (1 is the first line, the CSV header's). */
  line: number;
  /** The record's columns by header name (a text file's one column is `email`); empty for a malformed line. */
  columns: Record<string, string>;
}

/** A quote never closed: the lines from its own to the end of the file were read as one field. */
export interface UnclosedQuote {
  /** The line the quote opened on (its record's row reports it). */
  from: number;
  /** The file's last line. */
  to: number;
  /** Records on the lines after `from`, as they read with that line left out: none of them has a row. */
  swallowed: number;
}

export interface ListInput {
  /** The input's column names, in file order. */
  header: string[];
  records: AsyncIterable<BulkItem<InputRecord>>;
  /** Once `records` has been read to its end: the quote never closed, if there was one. */
  unclosedQuote(): UnclosedQuote | null;
}

export type InputFormat = 'csv' | 'txt';

export function inputFormatOf(file: string): InputFormat {
  if (/\.csv$/i.test(file)) return 'csv';
  if (/\.txt$/i.test(file)) return 'txt';
  throw new UsageError(`${file}: the list must be a .csv file (with a header) or a .txt file (one address per line)`);
}

export async function openList(file: string, column: string): Promise<ListInput> {
  return inputFormatOf(file) === 'csv' ? openCsv(file, column) : { header: ['email'], records: textRecords(file), unclosedQuote: () => null };
}

function itemOf(line: number, columns: Record<string, string>, raw: string | undefined): BulkItem<InputRecord> {
  const email = (raw ?? '').trim();
  const record = { line, columns };
  if (email === '') return { record, email: null, problem: 'no address' };
  if (email.length > MAX_ADDRESS_LENGTH) return { record, email: null, problem: `address longer than ${MAX_ADDRESS_LENGTH} characters` };
  return { record, email, problem: null };
}

async function* textRecords(file: string): AsyncGenerator<BulkItem<InputRecord>> {
  const lines = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Number.POSITIVE_INFINITY });
  let number = 0;
  for await (const text of lines) {
    number += 1;
    const value = number === 1 ? text.replace(/^\uFEFF/, '') : text;
    if (value.trim() === '') continue; // blank lines are not records
    yield itemOf(number, { email: value }, value);
  }
}

interface SkippedRecord {
  error: CsvError;
  /** Records the parser had emitted (the header included) when it skipped this one. */
  after: number;
}

/**
 * How a list is read. A stray quote inside a field is kept as text, and a record with too many or too few fields
 * is reported by openCsv in order; what csv-parse still refuses (a quote never closed) is skipped and reported.
 */
const CSV_READING: Options = { bom: true, skip_empty_lines: true, relax_quotes: true, relax_column_count: true, skip_records_with_error: true };

async function openCsv(file: string, column: string): Promise<ListInput> {
  const skipped: SkippedRecord[] = [];
  let unclosed: UnclosedQuote | null = null;
  const parser = createReadStream(file).pipe(
    parse({
      ...CSV_READING,
      info: true,
      on_skip: (error) => {
        if (error) skipped.push({ error, after: parser.info.records });
        return undefined;
      },
    }),
  );
  const iterator: AsyncIterator<{ record: string[]; info: { lines: number; records: number } }> = parser[Symbol.asyncIterator]();
  const first = await iterator.next();
  if (first.done) throw new UsageError(`${file}: the file is empty; a CSV list starts with a header line naming its columns`);
  const header = first.value.record.map((name) => name.trim());
  const index = header.indexOf(column);
  if (index < 0) {
    parser.destroy();
    throw new UsageError(`${file}: no column "${column}" in the header (columns: ${header.join(', ')}); name the address column with --column`);
  }
  const lines = new LineCounter();
  lines.next(first.value.record, first.value.info.lines);
  const records = async function* (): AsyncGenerator<BulkItem<InputRecord>> {
    const problems = async function* (before: number) {
      while (skipped.length > 0 && (skipped[0] as SkippedRecord).after < before) {
        const { error } = skipped.shift() as SkippedRecord;
        if (error.code === 'CSV_QUOTE_NOT_CLOSED') {
          unclosed = await unclosedQuote(file, lines.last);
          yield { record: { line: unclosed.from, columns: {} }, email: null, problem: `malformed CSV line: ${unclosedReason(unclosed)}` };
          continue;
        }
        yield { record: { line: lines.following, columns: {} }, email: null, problem: `malformed CSV line: ${reasonOf(error)}` };
      }
    };
    try {
      for (;;) {
        const next = await iterator.next();
        yield* problems(next.done ? Number.POSITIVE_INFINITY : next.value.info.records);
        if (next.done) return;
        const { record, info } = next.value;
        const line = lines.next(record, info.lines);
        // A record of the wrong width keeps the fields it has, by position, so its row shows which it was.
        const columns: Record<string, string> = {};
        header.forEach((name, i) => {
          columns[name] = record[i] ?? '';
        });
        if (record.length !== header.length) {
          const spans = lines.last > line ? ` (the record spans lines ${line}–${lines.last}: a quote in it may be misplaced)` : '';
          yield {
            record: { line, columns },
            email: null,
            problem: `malformed CSV line: ${record.length} fields where the header has ${header.length}${spans}`,
          };
          continue;
        }
        yield itemOf(line, columns, record[index]);
      }
    } finally {
      parser.destroy(); // a run stopped early (Ctrl-C) reads no further
    }
  };
  return { header, records: records(), unclosedQuote: () => unclosed };
}

/**
 * The quote never closed after line `after` (the last line of the last record read): it opened on the next line
 * that is not empty, and swallowed the records on the lines after that one, counted by reading them as a list.
 */
async function unclosedQuote(file: string, after: number): Promise<UnclosedQuote> {
  const quote = { from: 0, to: 0, swallowed: 0 };
  const tail = async function* () {
    const lines = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Number.POSITIVE_INFINITY });
    for await (const text of lines) {
      quote.to += 1;
      if (quote.to <= after) continue;
      if (quote.from > 0) yield `${text}\n`;
      else if (text !== '') quote.from = quote.to;
    }
  };
  const counting = Readable.from(tail()).pipe(
    parse({
      ...CSV_READING,
      on_skip: () => {
        quote.swallowed += 1;
        return undefined;
      },
    }),
  );
  for await (const _record of counting) quote.swallowed += 1;
  return quote;
}

function unclosedReason({ from, to, swallowed }: UnclosedQuote): string {
  const span = to > from ? `lines ${from}–${to}, to the end of the file, were read as one field` : 'it is the last line';
  const lost = swallowed === 0 ? '' : `, swallowing ${swallowed === 1 ? 'the record' : `the ${fmt(swallowed)} records`} after it (not verified, no row)`;
  return `a quote opened on this line is never closed: ${span}${lost}`;
}

/**
 * The line each record starts on. csv-parse reports the line a record ends on, and counts a CRLF inside a
 * quoted field as two lines: the count is corrected by the line breaks the record's own fields hold.
 */
class LineCounter {
  private extra = 0;
  private end = 0;

  /** The record's first line, given the line csv-parse says it ended on. */
  next(record: readonly string[], reportedEnd: number): number {
    let crlf = 0;
    let breaks = 0;
    for (const field of record) {
      for (const match of field.matchAll(/\r\n|\r|\n/g)) {
        breaks += 1;
        if (match[0] === '\r\n') crlf += 1;
      }
    }
    this.extra += crlf;
    this.end = reportedEnd - this.extra;
    return this.end - breaks;
  }

  /** The line the last record read ends on. */
  get last(): number {
    return this.end;
  }

  /** The line after the last record read. */
  get following(): number {
    return this.end + 1;
  }
}

/** csv-parse's reason, without its line number (counted its own way; the record's line is reported beside it). */
function reasonOf(error: CsvError): string {
  return error.message.replace(/\s+(at|on) line \d+\.?$/i, '');
}

// The compiled IP tables kept between starts (table-cache.ts, lists.ts's loadTables): read back they are the
// tables the lists compile to; a changed list, a damaged file or a cache that cannot be written all give the
// lists' own tables.
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readDataFile } from '../plugin-data.js';
import { decode, type IpTables, loadTables, TABLE_FILES, TOR, tablesKeyFor } from './lists.js';
import { Ipv4Table } from './range-table.js';
import { cacheFile, readCachedTables, writeCachedTables } from './table-cache.js';

const shipped = (file: string) => readDataFile('ip-intelligence', file);
const texts = TABLE_FILES.map(shipped);
/** The lists compiled, no cache involved: what every load must equal. */
const compiled = loadTables({ cacheDir: null });

/** Each typed array as its kind, length and SHA-256: compared whole, where an element-wise toEqual took seconds. */
const digests = (arrays: object) =>
  Object.fromEntries(
    Object.entries(arrays as Record<string, ArrayBufferView & { length: number }>).map(([name, array]) => [
      name,
      `${array.constructor.name} of ${array.length}, sha256 ${createHash('sha256')
        .update(Buffer.from(array.buffer, array.byteOffset, array.byteLength))
        .digest('hex')}`,
    ]),
  );

function expectSameTables(actual: IpTables, expected: IpTables): void {
  expect(digests(actual.v4.arrays())).toEqual(digests(expected.v4.arrays()));
  expect(digests(actual.v6.arrays())).toEqual(digests(expected.v6.arrays()));
  expect(actual.lists).toEqual(expected.lists);
}

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ip-tables-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const files = () => readdirSync(dir).filter((name) => name.endsWith('.bin'));
/** The shipped lists' file, as the first load keeps it (shown by the first test), without compiling again. */
const keepCompiled = () => expect(writeCachedTables(dir, tablesKeyFor(texts), compiled)).toBe(true);

describe('the compiled IP tables kept between starts', () => {
  it('the first load compiles and keeps the tables; the next reads them back, the same tables', () => {
    expectSameTables(loadTables({ cacheDir: dir }), compiled);
    expect(files()).toEqual([`ip-tables-${tablesKeyFor(texts)}.bin`]);
    const again = loadTables({ cacheDir: dir });
    expectSameTables(again, compiled);
    expect(again.v4.size).toBe(compiled.v4.size);
    expect(decode(again.v4.find(0x03058c02)).provider).toBe('aws'); // 3.5.140.2
  });

  it('a load reads the file kept for its lists rather than compiling them', () => {
    // A file for the same key whose one IPv4 segment is Tor: a load that compiled would not say so.
    const arrays = compiled.v4.arrays();
    const v4 = Ipv4Table.fromArrays({ starts: arrays.starts.slice(0, 1), ends: arrays.ends.slice(0, 1), labels: Uint16Array.of(TOR) });
    expect(writeCachedTables(dir, tablesKeyFor(texts), { ...compiled, v4 })).toBe(true);
    const loaded = loadTables({ cacheDir: dir });
    expect(loaded.v4.size).toBe(1);
    expect(loaded.v4.find(arrays.starts[0] as number)).toBe(TOR);
  });

  it('a changed list makes another key: its tables are compiled anew, with the change', () => {
    keepCompiled();
    const withExtraTor = (file: string) => (file === 'tor-exits.txt' ? `${shipped(file)}\n198.51.100.0/24\n` : shipped(file));
    const changed = loadTables({ cacheDir: dir, read: withExtraTor });
    expect(changed.v4.find(0xc6336407) & TOR).toBe(TOR); // 198.51.100.7
    expect(compiled.v4.find(0xc6336407) & TOR).toBe(0);
    expect(files()).toHaveLength(2);
    expectSameTables(loadTables({ cacheDir: dir, read: withExtraTor }), changed);
  });

  it('a file cut short or with a byte changed is not used: the lists are compiled again and the file rewritten whole', () => {
    keepCompiled();
    const file = cacheFile(dir, tablesKeyFor(texts));
    const whole = readFileSync(file);
    for (const damaged of [
      whole.subarray(0, whole.length - 100),
      Buffer.concat([whole.subarray(0, -1), Buffer.from([(whole.at(-1) as number) ^ 0xff])]),
      Buffer.alloc(0),
    ]) {
      writeFileSync(file, damaged);
      expect(readCachedTables(dir, tablesKeyFor(texts))).toBeNull();
      expectSameTables(loadTables({ cacheDir: dir }), compiled);
      expect(readFileSync(file).equals(whole)).toBe(true);
    }
  });

  it('a cache folder that cannot be made still loads the compiled tables', () => {
    const notAFolder = join(dir, 'a-file');
    writeFileSync(notAFolder, 'x');
    expectSameTables(loadTables({ cacheDir: join(notAFolder, 'cache') }), compiled);
  });

  it("another key's file unread for a week is removed when a new one is written; a recent one stays", () => {
    const stale = join(dir, `ip-tables-${'a'.repeat(64)}.bin`);
    const recent = join(dir, `ip-tables-${'b'.repeat(64)}.bin`);
    writeFileSync(stale, 'old');
    writeFileSync(recent, 'new');
    const eightDaysAgo = new Date(Date.now() - 8 * 86_400_000);
    utimesSync(stale, eightDaysAgo, eightDaysAgo);
    loadTables({ cacheDir: dir });
    expect(files().sort()).toEqual([`ip-tables-${tablesKeyFor(texts)}.bin`, `ip-tables-${'b'.repeat(64)}.bin`].sort());
  });

  it("the key changes with any list's text", () => {
    expect(tablesKeyFor(texts)).toMatch(/^[0-9a-f]{64}$/);
    for (const i of [0, TABLE_FILES.length - 1]) {
      expect(tablesKeyFor(texts.map((text, j) => (j === i ? `${text}\n` : text)))).not.toBe(tablesKeyFor(texts));
    }
  });
});

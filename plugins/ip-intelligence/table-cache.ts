// The compiled IP tables kept on disk between starts. Compiling the 91,000 ranges of data/ took 190-300 ms
// of a start (and, in a process of its own, 48 MB more resident memory); reading the compiled typed arrays
// back takes about 12 ms, most of it reading the lists to compute the key. A cache file is named by a key:
// the hash of every input of the compilation (each list's name and text, and the source of the code that
// turns them into labels), so a changed list, a new provider or a changed precedence makes another key, and
// the tables are compiled anew. The file carries a hash of its own payload: a file cut short or damaged is
// not used. Writing it is best effort (a read-only install compiles at every start, as before).
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Ipv4Arrays, Ipv4Table, type Ipv6Arrays, Ipv6Table } from './range-table.js';

/** What a cache file holds: both tables and the lists they were compiled from, with their entry counts. */
export interface CachedTables {
  v4: Ipv4Table;
  v6: Ipv6Table;
  lists: { file: string; entries: number }[];
}

const MAGIC = 'email-trust ip tables 1\n';
const HASH_BYTES = 32;

/** The cache key of the inputs: `parts` are every text the compiled tables depend on, in a fixed order. */
export function tablesKey(parts: readonly string[]): string {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(`${Buffer.byteLength(part)}:`).update(part);
  return hash.digest('hex');
}

/** The file of `key`'s tables in `dir`. */
export function cacheFile(dir: string, key: string): string {
  return join(dir, `ip-tables-${key}.bin`);
}

interface Header {
  key: string;
  v4: number;
  v6: number;
  lists: { file: string; entries: number }[];
}

/** The tables from `dir`'s file for `key`; null when there is none, or it is not whole and for this key. */
export function readCachedTables(dir: string, key: string): CachedTables | null {
  let file: Buffer;
  try {
    file = readFileSync(cacheFile(dir, key));
  } catch {
    return null;
  }
  try {
    const magic = Buffer.from(MAGIC);
    if (file.length < magic.length + 4 + HASH_BYTES || !file.subarray(0, magic.length).equals(magic)) return null;
    const headerLength = file.readUInt32LE(magic.length);
    const headerEnd = magic.length + 4 + headerLength;
    if (headerEnd + HASH_BYTES > file.length) return null;
    const header = JSON.parse(file.subarray(magic.length + 4, headerEnd).toString('utf8')) as Header;
    const stored = file.subarray(headerEnd, headerEnd + HASH_BYTES);
    const payload = file.subarray(headerEnd + HASH_BYTES);
    if (header.key !== key || !createHash('sha256').update(payload).digest().equals(stored)) return null;
    const { v4, v6 } = header;
    if (payload.length !== v4 * 10 + v6 * 34) return null;
    // Copies, aligned: a file's bytes are not at an offset a BigUint64Array can view.
    let at = 0;
    const take = <T>(count: number, size: number, make: (buffer: ArrayBuffer) => T): T => {
      const bytes = new Uint8Array(count * size);
      bytes.set(payload.subarray(at, at + count * size));
      at += count * size;
      return make(bytes.buffer);
    };
    const v4Arrays: Ipv4Arrays = {
      starts: take(v4, 4, (b) => new Uint32Array(b)),
      ends: take(v4, 4, (b) => new Uint32Array(b)),
      labels: take(v4, 2, (b) => new Uint16Array(b)),
    };
    const v6Arrays: Ipv6Arrays = {
      startHi: take(v6, 8, (b) => new BigUint64Array(b)),
      startLo: take(v6, 8, (b) => new BigUint64Array(b)),
      endHi: take(v6, 8, (b) => new BigUint64Array(b)),
      endLo: take(v6, 8, (b) => new BigUint64Array(b)),
      labels: take(v6, 2, (b) => new Uint16Array(b)),
    };
    markRead(cacheFile(dir, key));
    return { v4: Ipv4Table.fromArrays(v4Arrays), v6: Ipv6Table.fromArrays(v6Arrays), lists: header.lists };
  } catch {
    return null;
  }
}

/** A file's modification time is when it was last read (removeUnused): best effort, a read-only cache stays as it is. */
function markRead(file: string): void {
  try {
    const now = new Date();
    utimesSync(file, now, now);
  } catch {
    // Read-only: nothing is removed from it either.
  }
}

/** Writes the tables to `dir` under `key` (a new file renamed into place: readers never see half of one); false when it could not. */
export function writeCachedTables(dir: string, key: string, tables: CachedTables): boolean {
  const v4 = tables.v4.arrays();
  const v6 = tables.v6.arrays();
  const payload = Buffer.concat(
    [v4.starts, v4.ends, v4.labels, v6.startHi, v6.startLo, v6.endHi, v6.endLo, v6.labels].map((array) =>
      Buffer.from(array.buffer, array.byteOffset, array.byteLength),
    ),
  );
  const header = Buffer.from(JSON.stringify({ key, v4: tables.v4.size, v6: tables.v6.size, lists: tables.lists } satisfies Header));
  const length = Buffer.alloc(4);
  length.writeUInt32LE(header.length);
  const target = cacheFile(dir, key);
  const temporary = `${target}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    mkdirSync(dir, { recursive: true });
    writeFileSync(temporary, Buffer.concat([Buffer.from(MAGIC), length, header, createHash('sha256').update(payload).digest(), payload]));
    renameSync(temporary, target);
  } catch {
    try {
      rmSync(temporary, { force: true });
    } catch {
      // The folder itself could not be made.
    }
    return false;
  }
  removeUnused(dir, target);
  return true;
}

/** Another key's file unread for this long is removed when a new one is written (the lists changed since). */
const UNUSED_MS = 7 * 86_400_000;

/**
 * Removes the files of other keys not read for UNUSED_MS. Not every other key's: the tests (run from the
 * TypeScript sources) and the built service compile the same lists with code of another text, so two keys
 * are in use side by side.
 */
function removeUnused(dir: string, kept: string): void {
  try {
    const now = Date.now();
    for (const name of readdirSync(dir)) {
      const file = join(dir, name);
      if (/^ip-tables-[0-9a-f]{64}\.bin$/.test(name) && file !== kept && now - statSync(file).mtimeMs > UNUSED_MS) rmSync(file, { force: true });
    }
  } catch {
    // Left for a later write.
  }
}

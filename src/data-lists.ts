// The installed data lists (DATA_DIR) on disk: `<dir>/<plugin>/<file>` and, beside it, `<file>.meta.json`
// (urls, fetched_at, sha256, entries). `email-trust data update` writes them; the plugins read them at load
// (plugins/plugin-data.ts). One module knows the layout, so writer and readers cannot drift apart.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import type { InstalledList } from './engine/plugin.js';

export const sha256Hex = (bytes: string | Buffer): string => createHash('sha256').update(bytes).digest('hex');

const listPath = (dir: string, plugin: string, file: string) => join(dir, plugin, file);
const metaPath = (dir: string, plugin: string, file: string) => `${listPath(dir, plugin, file)}.meta.json`;

/**
 * The installed text of a list and its metadata; null when there is none, or when it is not whole (no metadata,
 * metadata that does not parse, a checksum that does not match): the shipped list is then the one loaded.
 */
export function readInstalled(dir: string, plugin: string, file: string): { text: string; meta: InstalledList } | null {
  let bytes: Buffer;
  let raw: unknown;
  try {
    bytes = readFileSync(listPath(dir, plugin, file));
    raw = JSON.parse(readFileSync(metaPath(dir, plugin, file), 'utf8'));
  } catch {
    return null;
  }
  const meta = raw as { urls?: unknown; fetched_at?: unknown; sha256?: unknown; entries?: unknown };
  if (
    !Array.isArray(meta.urls) ||
    typeof meta.fetched_at !== 'string' ||
    Number.isNaN(Date.parse(meta.fetched_at)) ||
    typeof meta.entries !== 'number' ||
    meta.sha256 !== sha256Hex(bytes)
  ) {
    return null;
  }
  return { text: bytes.toString('utf8'), meta: { urls: meta.urls.map(String), fetchedAt: meta.fetched_at, sha256: meta.sha256, entries: meta.entries } };
}

/**
 * Installs a list: each file written to a temporary name and renamed over the old one (atomic on one file
 * system), the list first, then its metadata. A reader between the two renames finds a checksum that does
 * not match and loads the shipped list, never a torn one.
 */
export function writeInstalled(dir: string, plugin: string, file: string, text: string, meta: Omit<InstalledList, 'sha256'>): InstalledList {
  const path = listPath(dir, plugin, file);
  mkdirSync(dirname(path), { recursive: true });
  const installed: InstalledList = { ...meta, sha256: sha256Hex(text) };
  const replace = (target: string, content: string) => {
    const temporary = `${target}.${process.pid}.tmp`;
    writeFileSync(temporary, content);
    renameSync(temporary, target);
  };
  replace(path, text);
  replace(
    metaPath(dir, plugin, file),
    `${JSON.stringify({ urls: installed.urls, fetched_at: installed.fetchedAt, sha256: installed.sha256, entries: installed.entries }, null, 2)}\n`,
  );
  return installed;
}

/** An update's lock file in DATA_DIR: one `data update` installs at a time, however many instances share the folder. */
const lockPath = (dir: string) => join(dir, '.update.lock');

/** A lock older than this is one an update left when it died (an update's downloads end within minutes): taken over. */
export const STALE_LOCK_MS = 60 * 60_000;

export interface LockHolder {
  pid: number;
  host: string;
  startedAt: string;
}

/**
 * Takes DATA_DIR's update lock: its release, or the holder when another update has it. Created exclusively
 * (O_EXCL, atomic on a shared volume too), so two instances' updates never interleave their renames (a list
 * of one beside the metadata of the other would load the shipped list until the next reload).
 */
export function takeUpdateLock(dir: string, now = Date.now()): { release(): void } | { holder: LockHolder } {
  const path = lockPath(dir);
  mkdirSync(dir, { recursive: true });
  const mine: LockHolder = { pid: process.pid, host: hostname(), startedAt: new Date(now).toISOString() };
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(path, `${JSON.stringify(mine)}\n`, { flag: 'wx' });
      return { release: () => rmSync(path, { force: true }) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = readHolder(path);
    if (holder && now - Date.parse(holder.startedAt) < STALE_LOCK_MS) return { holder };
    rmSync(path, { force: true }); // unreadable, or left by an update that died: taken over
  }
  return { holder: readHolder(path) ?? { pid: 0, host: 'unknown', startedAt: new Date(now).toISOString() } };
}

function readHolder(path: string): LockHolder | null {
  try {
    const raw = JSON.parse(readFileSync(path, 'utf8')) as Partial<LockHolder>;
    if (typeof raw.pid !== 'number' || typeof raw.host !== 'string' || typeof raw.startedAt !== 'string' || Number.isNaN(Date.parse(raw.startedAt)))
      return null;
    return { pid: raw.pid, host: raw.host, startedAt: raw.startedAt };
  } catch {
    return null;
  }
}

// One command's use of the store named by DATABASE_URL: named on stderr, opened, brought up to date,
// always closed. The name goes to stderr so stdout stays the command's result (JSON, a list) for pipes.
import { isAbsolute, resolve } from 'node:path';
import { loadConfig } from '../config.js';
import { openDatabase, parseDatabaseUrl, type Store } from '../store/database.js';

export async function withStore<T>(work: (store: Store) => Promise<T>): Promise<T> {
  const { databaseUrl } = loadConfig();
  announceDatabase(databaseUrl);
  const store = await openDatabase(databaseUrl);
  try {
    await store.migrate();
    return await work(store);
  } finally {
    await store.close();
  }
}

/** `using <database>` on stderr, before it is opened: so nobody edits the wrong database by accident. */
export function announceDatabase(databaseUrl: string): void {
  console.error(`using ${databaseName(databaseUrl)}`);
}

/**
 * DATABASE_URL as a person should see it: a relative SQLite path with the file it resolves to here, a
 * PostgreSQL URL with its password (in the user part or the query) replaced by `***`.
 */
export function databaseName(databaseUrl: string): string {
  const target = parseDatabaseUrl(databaseUrl);
  if (target.client === 'sqlite') {
    const file = target.filename;
    return file === ':memory:' || isAbsolute(file) ? `sqlite:${file}` : `sqlite:${file} (${resolve(file)})`;
  }
  const url = new URL(target.url);
  if (url.password) url.password = '***';
  for (const name of [...url.searchParams.keys()]) if (name.toLowerCase() === 'password') url.searchParams.set(name, '***');
  return url.toString();
}

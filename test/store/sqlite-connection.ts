// A connection of its own on a SQLite file, through better-sqlite3 (the store's driver), as another process
// would hold one: to take the write lock, or read what the store committed, beside the store under test.
import Database from 'better-sqlite3';

export interface SqliteConnection {
  run(sql: string, ...bindings: unknown[]): Promise<void>;
  all<T = Record<string, unknown>>(sql: string, ...bindings: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

/** Opens `file` (created if missing, unless `readonly`) with busy_timeout 0: a lock held elsewhere fails at once. */
export async function sqliteConnection(file: string, options: { readonly?: boolean } = {}): Promise<SqliteConnection> {
  const db = new Database(file, { readonly: options.readonly ?? false, fileMustExist: options.readonly ?? false, timeout: 0 });
  return {
    run: async (sql, ...bindings) => {
      db.prepare(sql).run(...bindings);
    },
    all: async <T>(sql: string, ...bindings: unknown[]) => db.prepare(sql).all(...bindings) as T[],
    close: async () => {
      db.close();
    },
  };
}

/** The rejection of `work`, which must reject. */
export async function failureOf(work: () => Promise<unknown>): Promise<unknown> {
  try {
    await work();
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
}

// A connection of its own on a SQLite file, through node-sqlite3 (the store's driver), as another process
// would hold one: to take the write lock, or read what the store committed, beside the store under test.
import sqlite3 from 'sqlite3';

export interface SqliteConnection {
  run(sql: string, ...bindings: unknown[]): Promise<void>;
  all<T = Record<string, unknown>>(sql: string, ...bindings: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

/** Opens `file` (created if missing, unless `mode` says otherwise) with busy_timeout 0: a lock held elsewhere fails at once. */
export async function sqliteConnection(file: string, mode = sqlite3.OPEN_READWRITE | sqlite3.OPEN_CREATE): Promise<SqliteConnection> {
  const db = await new Promise<sqlite3.Database>((resolve, reject) => {
    const opened: sqlite3.Database = new sqlite3.Database(file, mode, (error) => (error ? reject(error) : resolve(opened)));
  });
  const done =
    <T>(resolve: (value: T) => void, reject: (error: Error) => void) =>
    (error: Error | null, value: T) =>
      error ? reject(error) : resolve(value);
  const connection: SqliteConnection = {
    run: (sql, ...bindings) => new Promise((resolve, reject) => db.run(sql, bindings, (error: Error | null) => (error ? reject(error) : resolve()))),
    all: <T>(sql: string, ...bindings: unknown[]) => new Promise<T[]>((resolve, reject) => db.all<T>(sql, bindings, done(resolve, reject))),
    close: () => new Promise((resolve, reject) => db.close((error) => (error ? reject(error) : resolve()))),
  };
  await connection.run('pragma busy_timeout = 0'); // node-sqlite3 opens with 1 s
  return connection;
}

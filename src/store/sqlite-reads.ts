// Hot-path reads on an embedded SQLite file through a connection of their own, with prepared
// statements: knex's query building and pool cost five times the query itself (600 µs against
// 120 µs per velocity read, measured on this machine). WAL lets this reader run beside the writer.
import sqlite3 from 'sqlite3';
import type { Statement } from './velocity-queries.js';

export interface SqliteReads {
  all(statement: Statement): Promise<Array<Record<string, unknown>>>;
  get(statement: Statement): Promise<Record<string, unknown> | undefined>;
  close(): Promise<void>;
}

const MAX_PREPARED = 64;

export function openSqliteReads(filename: string): SqliteReads {
  let db: sqlite3.Database | null = null;
  const prepared = new Map<string, sqlite3.Statement>();

  function statement(sql: string): sqlite3.Statement {
    db ??= new sqlite3.Database(filename, sqlite3.OPEN_READONLY);
    let stmt = prepared.get(sql);
    if (!stmt) {
      if (prepared.size >= MAX_PREPARED) {
        const [oldest, old] = prepared.entries().next().value as [string, sqlite3.Statement];
        old.finalize();
        prepared.delete(oldest);
      }
      stmt = db.prepare(sql);
      prepared.set(sql, stmt);
    }
    return stmt;
  }

  return {
    all: ({ sql, bindings }) =>
      new Promise((resolve, reject) => statement(sql).all(bindings, (err, rows) => (err ? reject(err) : resolve(rows as Array<Record<string, unknown>>)))),
    // Statement.get leaves the statement open, and with it a read snapshot that would hide later
    // commits; `all` runs every statement to its end, which releases the snapshot.
    get: ({ sql, bindings }) =>
      new Promise((resolve, reject) => statement(sql).all(bindings, (err, rows) => (err ? reject(err) : resolve(rows[0] as Record<string, unknown> | undefined)))),
    close: () =>
      new Promise((resolve, reject) => {
        if (!db) return resolve();
        for (const stmt of prepared.values()) stmt.finalize();
        prepared.clear();
        db.close((err) => (err ? reject(err) : resolve()));
        db = null;
      }),
  };
}

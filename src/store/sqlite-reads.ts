// Reads on an embedded SQLite file through a read-only connection of their own, with prepared statements
// run synchronously (better-sqlite3): several times cheaper than through knex. The service runs its hot reads
// on the store thread instead (sqlite-thread.ts: on the event loop these cost intelligence about 110 µs of
// CPU per request); bench/store.ts reads with this, the velocity statements without the thread's cache.
// Synchronous is safe only because every velocity statement is bounded
// (velocity-counters.ts: at most 182 counter rows or `limit` address rows, about 0.1 ms). WAL lets
// this reader run beside the writers (knex's connection, the event writer's); every statement runs to its end, so each read sees every
// commit made before it.
import Database from 'better-sqlite3';
import { LRUCache } from 'lru-cache';
import type { Statement } from './velocity-counters.js';

export interface SqliteReads {
  all(statement: Statement): Promise<Array<Record<string, unknown>>>;
  close(): Promise<void>;
}

/** Statements kept prepared; past it the least recently used one is dropped (and prepared again if asked). */
const MAX_PREPARED = 64;

export function openSqliteReads(filename: string): SqliteReads {
  let db: Database.Database | null = null;
  const prepared = new LRUCache<string, Database.Statement>({ max: MAX_PREPARED });
  let closed = false;

  function statement(sql: string): Database.Statement {
    if (closed) throw new Error('the store is closed');
    // Opened on first use: by then migrations have created the file and its tables.
    db ??= new Database(filename, { readonly: true, fileMustExist: true });
    let stmt = prepared.get(sql);
    if (!stmt) {
      stmt = db.prepare(sql);
      prepared.set(sql, stmt);
    }
    return stmt;
  }

  const run = <T>(work: () => T): Promise<T> => {
    try {
      return Promise.resolve(work());
    } catch (error) {
      return Promise.reject(error);
    }
  };

  return {
    all: ({ sql, bindings }) => run(() => statement(sql).all(...bindings) as Array<Record<string, unknown>>),
    close: async () => {
      closed = true;
      prepared.clear();
      db?.close();
      db = null;
    },
  };
}

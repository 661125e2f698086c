// project_list_entries: a project's own domain lists (`email-trust project lists`), read by the
// listed-domain checks. Every change raises the project's lists_revision in the same transaction; a
// running service learns the revision with the project (cached with its key lookups for at most 5 s,
// keys.ts) and reloads the project's entries into memory sets only when it moved: lookups never query
// the database per request.
import type { Knex } from 'knex';
import { LRUCache } from 'lru-cache';
import type { ProjectListReader } from '../engine/plugin.js';
import type { Project } from './projects.js';
import { toNumber } from './sql-values.js';

/** Entries one list of one project may hold. */
export const MAX_LIST_ENTRIES = 100_000;
/** Entries, over all projects, a service keeps in memory; the least recently used project's lists go first. */
export const MAX_CACHED_ENTRIES = 1_000_000;
/**
 * Rows per insert or delete statement: knex writes SQLite's multi-row insert as a compound SELECT, which
 * SQLite caps at 500 terms; 3 values a row stay well under either database's parameter limit.
 */
const BATCH = 400;

/** Adding would take the list past MAX_LIST_ENTRIES: nothing was written. */
export class ListFullError extends Error {
  constructor(
    readonly list: string,
    readonly wouldHold: number,
  ) {
    super(`the ${list} list would hold ${wouldHold} entries; a list holds at most ${MAX_LIST_ENTRIES}`);
  }
}

export interface ListChange {
  /** Entries added (or removed) by this change. */
  changed: number;
  /** Entries given that were already on the list (add) or were not on it (remove). */
  unchanged: number;
  /** Entries on the list after the change. */
  total: number;
}

export interface ProjectLists {
  /** Adds domains (lower-case ASCII, validated by the caller) to one list, in one transaction; ListFullError past the limit. */
  add(projectId: string, list: string, domains: readonly string[]): Promise<ListChange>;
  /** Removes domains from one list, in one transaction. */
  remove(projectId: string, list: string, domains: readonly string[]): Promise<ListChange>;
  /** Removes every entry of one list, or of every list (`list` null); returns how many. */
  clear(projectId: string, list: string | null): Promise<number>;
  /** Entries per list, for the lists that have any. */
  counts(projectId: string): Promise<Record<string, number>>;
  /** One list's entries, sorted; the first `limit` when given. */
  entries(projectId: string, list: string, limit?: number): Promise<string[]>;
  /** The project's lists as of its revision, from memory (loaded once per revision). */
  reader(project: Pick<Project, 'id' | 'listsRevision'>): ProjectListReader;
}

type ListSets = ReadonlyMap<string, ReadonlySet<string>>;

interface Loaded {
  revision: number;
  lists: ListSets;
  size: number;
}

const EMPTY_SET: ReadonlySet<string> = new Set();
const NO_LISTS: ListSets = new Map();

function batches<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += BATCH) out.push(items.slice(i, i + BATCH));
  return out;
}

/** `onChange` is told after every change, so caches holding projects (and their revision) forget them. */
export function createProjectLists(knex: Knex, onChange: () => void = () => {}): ProjectLists {
  const table = (trx: Knex | Knex.Transaction = knex) => trx('project_list_entries');
  const loaded = new LRUCache<string, Loaded>({ maxSize: MAX_CACHED_ENTRIES, sizeCalculation: (entry) => Math.max(1, entry.size) });
  // One load per project at a time: concurrent requests after a change share it.
  const loading = new Map<string, { revision: number; lists: Promise<ListSets> }>();

  async function count(trx: Knex.Transaction, projectId: string, list: string): Promise<number> {
    const row = (await table(trx).where({ project_id: projectId, list }).count({ n: '*' }).first()) as { n: unknown } | undefined;
    return toNumber(row?.n);
  }

  /**
   * Runs a change in a transaction that first raises the project's revision: on PostgreSQL that takes the
   * project row's lock, so concurrent changes to one project's lists (and their limit check) go one at a time.
   */
  async function change<T>(projectId: string, work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
    const result = await knex.transaction(async (trx) => {
      await trx('projects').where({ id: projectId }).increment('lists_revision', 1);
      return work(trx);
    });
    onChange();
    return result;
  }

  async function load(projectId: string, revision: number): Promise<ListSets> {
    const rows = (await table().where({ project_id: projectId }).select('list', 'domain')) as { list: string; domain: string }[];
    const lists = new Map<string, Set<string>>();
    for (const row of rows) {
      let set = lists.get(row.list);
      if (!set) {
        set = new Set();
        lists.set(row.list, set);
      }
      set.add(row.domain);
    }
    loaded.set(projectId, { revision, lists, size: rows.length });
    return lists;
  }

  function listsOf(projectId: string, revision: number): Promise<ListSets> | ListSets {
    // A request holding an older revision than the one loaded (its key lookup cached) gets the newer lists.
    const cached = loaded.get(projectId);
    if (cached && cached.revision >= revision) return cached.lists;
    // Revision 0: the project's lists were never changed, so it has none; no read.
    if (revision === 0) return NO_LISTS;
    const pending = loading.get(projectId);
    if (pending && pending.revision >= revision) return pending.lists;
    const lists = load(projectId, revision);
    const entry = { revision, lists };
    loading.set(projectId, entry);
    // Settled either way: the next request after a failed read tries again.
    const forget = () => {
      if (loading.get(projectId) === entry) loading.delete(projectId);
    };
    lists.then(forget, forget);
    return lists;
  }

  return {
    add(projectId, list, domains) {
      const unique = [...new Set(domains)];
      return change(projectId, async (trx) => {
        const before = await count(trx, projectId, list);
        for (const batch of batches(unique)) {
          await table(trx)
            .insert(batch.map((domain) => ({ project_id: projectId, list, domain })))
            .onConflict(['project_id', 'list', 'domain'])
            .ignore();
        }
        const total = await count(trx, projectId, list);
        if (total > MAX_LIST_ENTRIES) throw new ListFullError(list, total);
        return { changed: total - before, unchanged: unique.length - (total - before), total };
      });
    },

    remove(projectId, list, domains) {
      const unique = [...new Set(domains)];
      return change(projectId, async (trx) => {
        let removed = 0;
        for (const batch of batches(unique)) removed += await table(trx).where({ project_id: projectId, list }).whereIn('domain', batch).delete();
        return { changed: removed, unchanged: unique.length - removed, total: await count(trx, projectId, list) };
      });
    },

    clear(projectId, list) {
      return change(projectId, (trx) => {
        const rows = table(trx).where({ project_id: projectId });
        return list === null ? rows.delete() : rows.where({ list }).delete();
      });
    },

    async counts(projectId) {
      const rows = (await table().where({ project_id: projectId }).groupBy('list').select('list').count({ n: '*' })) as { list: string; n: unknown }[];
      return Object.fromEntries(rows.map((row) => [row.list, toNumber(row.n)]));
    },

    async entries(projectId, list, limit) {
      const query = table().where({ project_id: projectId, list }).orderBy('domain').select('domain');
      const rows = (await (limit === undefined ? query : query.limit(Math.max(0, Math.trunc(limit))))) as { domain: string }[];
      return rows.map((row) => row.domain);
    },

    reader(project) {
      return {
        entries(list) {
          const lists = listsOf(project.id, project.listsRevision);
          return lists instanceof Promise ? lists.then((loaded) => loaded.get(list) ?? EMPTY_SET) : Promise.resolve(lists.get(list) ?? EMPTY_SET);
        },
      };
    },
  };
}

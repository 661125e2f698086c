// Hot reload of policies. A change in a policies folder (fs.watch on the folder, so editors that save
// by renaming a temporary file are seen too) reloads the named policies after a short quiet time; a
// reload on demand (SIGHUP) also forgets the cached key lookups and re-reads every project's policy
// from the database. Every outcome is logged (a failure with file:line:col) and counted in /metrics;
// the book keeps the previous revision of a policy that fails.
import { type FSWatcher, watch } from 'node:fs';
import type { Logger } from 'pino';
import { policyReloads, policyRevision } from '../metrics.js';
import type { PolicyBook } from '../policy/book.js';
import { formatProblem } from '../policy/errors.js';
import { POLICY_FILE, type ReloadOutcome } from '../policy/named-policies.js';
import type { Store } from '../store/database.js';

/** Quiet time after the last change event before the folders are read (an editor's save is several events). */
export const RELOAD_DEBOUNCE_MS = 100;

export interface PolicyReload {
  /** Reads the folders again, forgets cached key lookups and resolves every project's policy from the database. */
  reloadNow(): Promise<void>;
  /** Stops watching the folders. */
  close(): void;
}

export interface PolicyReloadOptions {
  book: PolicyBook;
  store: Pick<Store, 'projects' | 'keys'>;
  log: Logger;
  debounceMs?: number;
}

export function startPolicyReload({ book, store, log, debounceMs = RELOAD_DEBOUNCE_MS }: PolicyReloadOptions): PolicyReload {
  for (const [name, { revision }] of Object.entries(book.activeRevisions().named)) policyRevision.set({ policy: name, revision }, 1);
  book.onReload((outcome) => report(outcome, log));

  let timer: NodeJS.Timeout | undefined;
  const reloadFolders = () => {
    try {
      book.reloadFolders();
    } catch (error) {
      log.error({ err: error, folders: book.folders }, 'policies not reloaded: a policies folder cannot be read; the loaded policies stay in use');
    }
  };
  // Other files in the folder (an editor's swap file, a log written there) are no policy's change.
  const changed = (_event: string, file: string | null) => {
    if (file !== null && !POLICY_FILE.test(file)) return;
    clearTimeout(timer);
    timer = setTimeout(reloadFolders, debounceMs);
  };
  const watchers: FSWatcher[] = [];
  for (const folder of book.folders) {
    try {
      const watcher = watch(folder, { persistent: false }, changed);
      watcher.on('error', (error) => log.warn({ err: error, folder }, 'policies folder no longer watched: send SIGHUP to reload its policies'));
      watchers.push(watcher);
    } catch (error) {
      log.warn({ err: error, folder }, 'policies folder not watched (changes are not seen by themselves): send SIGHUP to reload its policies');
    }
  }

  return {
    async reloadNow() {
      clearTimeout(timer);
      reloadFolders();
      store.keys.clearCache();
      const unresolved = book.resolveProjects(await store.projects.list());
      for (const u of unresolved) {
        const problems = u.problems.length > 0 ? `: ${u.problems.map(formatProblem).join('; ')}` : '';
        log.error(
          { project: u.project, policy: u.policy },
          `project "${u.project}": ${u.reason}${problems}; its requests keep the policy they were last decided by, and a restart would refuse to start until it is fixed`,
        );
      }
      log.info({ policies: book.activeRevisions() }, 'policies reloaded');
    },
    close() {
      clearTimeout(timer);
      for (const watcher of watchers) watcher.close();
    },
  };
}

function report(outcome: ReloadOutcome, log: Logger): void {
  policyReloads.inc({ source: outcome.source, result: outcome.result });
  const what = outcome.project ? `project "${outcome.project}" policy "${outcome.policy}"` : `policy "${outcome.policy}"`;
  if (outcome.result === 'loaded') {
    if (outcome.source === 'file') {
      if (outcome.previous) policyRevision.remove({ policy: outcome.policy, revision: outcome.previous });
      policyRevision.set({ policy: outcome.policy, revision: outcome.revision ?? '' }, 1);
    }
    log.info({ ...fields(outcome) }, `${what} reloaded: revision ${outcome.revision} in use`);
    return;
  }
  const [first] = outcome.problems.map(formatProblem);
  const more = outcome.problems.length > 1 ? ` (and ${outcome.problems.length - 1} more)` : '';
  const kept = outcome.previous ? `revision ${outcome.previous} stays in use` : 'it is not in use';
  log.error({ ...fields(outcome), problems: outcome.problems.map(formatProblem) }, `${what} not reloaded: ${first}${more}; ${kept}`);
}

function fields(outcome: ReloadOutcome) {
  return { policy: outcome.policy, ...(outcome.project ? { project: outcome.project } : {}), revision: outcome.revision, previous: outcome.previous };
}

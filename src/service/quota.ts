// Monthly quota per project (`email-trust project set-quota`). Every verify and intelligence call of a
// non-sandbox project counts toward its calendar month (UTC); a project with a quota is refused once its
// month's count has reached it. No request writes to the database: counts gather in memory and are added
// to the `usage` table (store/usage.ts) by one statement per project and month every FLUSH_MS, and on close.
//
// With REDIS_URL the count that decides is Redis's (INCR of one key per project and month, expiring after
// the next month began), exact across every instance; a key Redis does not hold yet (a new month, or Redis
// restarted empty) starts from the database's count. Without Redis, or while Redis does not answer, each
// process decides from the database's count (read again after every flush) plus its own calls since:
// exact for one process, and across instances short by at most the others' calls of the last FLUSH_MS.
import type { Logger } from 'pino';
import type { Project } from '../store/projects.js';
import { monthOf, type Usage } from '../store/usage.js';
import type { Limits } from './limits.js';

/** How often counted calls are added to the usage table. */
export const FLUSH_MS = 1000;

export class QuotaExceededError extends Error {
  constructor(
    readonly quota: number,
    /** When the next month begins (ms), i.e. when calls are admitted again. */
    readonly renewsAt: number,
    /** Seconds from the refused call to renewsAt. */
    readonly retryAfterSeconds: number,
  ) {
    super(
      `monthly quota used up: this project may make ${quota} verify and intelligence calls per calendar month (UTC); it renews on ${new Date(renewsAt).toISOString()}`,
    );
    this.name = 'QuotaExceededError';
  }
}

export interface Quota {
  /** Counts one call of the project, or throws QuotaExceededError (the call is then not counted). */
  admit(project: Project): Promise<void>;
  /** Adds every call counted so far to the usage table. */
  flush(): Promise<void>;
  /** Flushes and stops the timer. */
  close(): Promise<void>;
}

export interface QuotaOptions {
  usage: Usage;
  limits: Limits;
  log: Logger;
  now(): number;
}

/** The first ms of the month after the one holding `at`, in UTC. */
export function nextMonthStart(at: number): number {
  const d = new Date(at);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}

interface Tally {
  projectId: string;
  month: string;
  /** The database's count at its last read or flush; null until read. */
  stored: number | null;
  reading: Promise<number> | null;
  /** Counted here, not yet flushed. */
  pending: number;
  /** Being flushed now. */
  flushing: number;
}

export function createQuota(options: QuotaOptions): Quota {
  const { usage, limits, log, now } = options;
  const tallies = new Map<string, Tally>();
  /** Redis keys this process has seeded from the database. */
  const seeded = new Set<string>();
  let flushing: Promise<void> | null = null;

  const tallyOf = (projectId: string, month: string): Tally => {
    const key = `${projectId}\u0000${month}`;
    let tally = tallies.get(key);
    if (!tally) {
      tally = { projectId, month, stored: null, reading: null, pending: 0, flushing: 0 };
      tallies.set(key, tally);
    }
    return tally;
  };

  const storedCount = async (tally: Tally): Promise<number> => {
    if (tally.stored !== null) return tally.stored;
    tally.reading ??= usage.get(tally.projectId, tally.month).finally(() => {
      tally.reading = null;
    });
    const count = await tally.reading;
    tally.stored ??= count;
    return tally.stored;
  };

  /** Redis's count after this call; null when Redis did not answer. */
  const redisCount = async (tally: Tally, at: number): Promise<number | null> => {
    const redis = limits.redis();
    if (!redis) {
      if (limits.hasRedis) limits.fellBack('quota');
      return null;
    }
    const key = `${limits.prefix}quota:${tally.projectId}:${tally.month}`;
    // Kept until the month after next begins, for any instance still finishing the month.
    const expiresAt = nextMonthStart(nextMonthStart(at));
    try {
      if (!seeded.has(key)) {
        await redis.set(key, String(await storedCount(tally)), 'PXAT', expiresAt, 'NX');
        seeded.add(key);
      }
      const replies = await redis.multi().incr(key).pexpireat(key, expiresAt).exec();
      const [error, count] = replies?.[0] ?? [new Error('no reply from redis'), null];
      if (error) throw error;
      return Number(count);
    } catch (error) {
      limits.redisFailed(error);
      limits.fellBack('quota', error);
      return null;
    }
  };

  const refuse = (project: Project, quota: number, at: number): never => {
    limits.emit({ type: 'quota_exceeded', projectId: project.id });
    const renewsAt = nextMonthStart(at);
    throw new QuotaExceededError(quota, renewsAt, Math.max(1, Math.ceil((renewsAt - at) / 1000)));
  };

  async function flushOnce(): Promise<void> {
    for (const [key, tally] of tallies) {
      if (tally.pending > 0) {
        const by = tally.pending;
        tally.pending = 0;
        tally.flushing += by;
        try {
          tally.stored = await usage.increment(tally.projectId, Date.parse(`${tally.month}-01T00:00:00Z`), by);
        } catch (error) {
          tally.pending += by;
          log.warn({ project: tally.projectId, month: tally.month, calls: by, reason: (error as Error).message }, 'quota: usage not stored yet; retrying');
        } finally {
          tally.flushing -= by;
        }
      }
      if (tally.pending === 0 && tally.flushing === 0 && tally.month !== monthOf(now())) tallies.delete(key);
      // Nothing to add: the next call reads the count again, with the other instances' calls flushed since.
      else if (tally.pending === 0 && tally.flushing === 0 && tally.reading === null) tally.stored = null;
    }
  }

  const flush = async (): Promise<void> => {
    while (flushing) await flushing;
    flushing = flushOnce().finally(() => {
      flushing = null;
    });
    await flushing;
  };

  const timer = setInterval(() => void flush().catch(() => undefined), FLUSH_MS);
  timer.unref();

  return {
    async admit(project) {
      if (project.sandbox) return;
      const at = now();
      const tally = tallyOf(project.id, monthOf(at));
      const quota = project.monthlyQuota;
      const shared = await redisCount(tally, at);
      if (shared !== null) {
        if (quota !== null && shared > quota) {
          // Not counted: the count stays the number of calls admitted.
          await limits
            .redis()
            ?.decr(`${limits.prefix}quota:${project.id}:${tally.month}`)
            .catch(() => undefined);
          refuse(project, quota, at);
        }
      } else if (quota !== null) {
        const used = (await storedCount(tally)) + tally.pending + tally.flushing;
        if (used >= quota) refuse(project, quota, at);
      }
      tally.pending += 1;
    },
    flush,
    async close() {
      clearInterval(timer);
      await flush();
    },
  };
}

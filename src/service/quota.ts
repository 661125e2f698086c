// Monthly quota per project (`email-trust project set-quota`). Every served verify and intelligence call of a
// non-sandbox project counts toward its calendar month (UTC); a project with a quota is refused once its month's
// count has reached it.
//
// The database is the source of truth: a call counts once its event commits, its usage row added in the same
// transaction (store/usage.ts), so the usage table always agrees with the events, a call refused or answered 503
// (its event not committed) never counts, and a kill -9 loses no count. Deciding is another matter: a call is
// admitted (or refused) before it runs, and its reservation is given back when it is not served.
//
// With REDIS_URL, Redis is the fast path: one script per call checks the project's month count against its quota
// and adds the call (`<prefix>quota:<project>:<YYYY-MM>`, kept until the month after next begins). A count Redis
// does not hold (a new month, Redis restarted or flushed) is seeded from the database, plus this process's calls
// in flight, before the call is counted; and after this process decided without Redis (breaker open, Redis
// down), Redis's count is set again from the database before it decides again. Without Redis, or while it does
// not answer, a process decides from the database's count, read at most REFRESH_MS before, plus its own calls
// served since and in flight.
//
// The bound (docs/instances.md, "Redis"): at most the quota plus a slack is ever admitted in a month.
// - Redis answering: exactly the quota, except that the calls in flight (admitted, not yet committed) of the
//   other instances when Redis restarts, is flushed, or is set again after an outage may be admitted once more.
// - Redis not answering, or no Redis with several processes (WORKERS): each process may also admit what the
//   others served in the last REFRESH_MS (a second), beyond the quota: per other process, its calls of one second.
// Redis may count a few calls that were never served (a process killed in a call; a call counted when a frozen
// Redis woke, after it had been decided without it): those refuse as many calls early, until the next outage
// sets the count again from the database.
import type { Redis } from 'ioredis';
import type { Project } from '../store/projects.js';
import { monthOf, type Usage } from '../store/usage.js';
import type { Limits } from './limits.js';

/** How long a process decides without Redis from one read of the database's count. */
export const REFRESH_MS = 1000;

export class QuotaExceededError extends Error {
  constructor(
    readonly quota: number,
    /** When the next month begins (ms), i.e. when calls are admitted again. */
    readonly renewsAt: number,
    /** Seconds from the refused call to renewsAt. */
    readonly retryAfterSeconds: number,
    /** The month's length in seconds: the quota's window. */
    readonly windowSeconds: number,
  ) {
    super(
      `monthly quota used up: this project may make ${quota} verify and intelligence calls per calendar month (UTC); it renews on ${new Date(renewsAt).toISOString()}`,
    );
    this.name = 'QuotaExceededError';
  }
}

export interface Quota {
  /**
   * Runs `call` when the project may make one more call this month, else throws QuotaExceededError (nothing
   * counted). The call counts once it resolves (its event is committed with its usage); when it rejects, its
   * reservation is given back. Sandbox projects' calls are run and never counted.
   */
  serve<T>(project: Project, call: () => Promise<T>): Promise<T>;
}

export interface QuotaOptions {
  usage: Usage;
  limits: Limits;
  now(): number;
}

/** The first ms of the month after the one holding `at`, in UTC. */
export function nextMonthStart(at: number): number {
  const d = new Date(at);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}

// KEYS[1]: a project's count for a month; ARGV: its quota (-1: none), the key's expiry (Unix ms). Answers
// {1, count} when the call is counted, {0, count} when the quota is used up, {-1, 0} when Redis holds no count.
const RESERVE = `
local count = tonumber(redis.call('GET', KEYS[1]))
if count == nil then return {-1, 0} end
local quota = tonumber(ARGV[1])
if quota >= 0 and count >= quota then return {0, count} end
redis.call('SET', KEYS[1], count + 1, 'PXAT', ARGV[2])
return {1, count + 1}`;

// A reservation given back (the call was not served); nothing when the count is gone (Redis restarted meanwhile).
const RELEASE = `
local count = tonumber(redis.call('GET', KEYS[1]))
if count ~= nil and count > 0 then return redis.call('DECR', KEYS[1]) end
return 0`;

interface QuotaCommands {
  quotaReserve(key: string, quota: string, expiresAt: string): Promise<[number, number]>;
  quotaRelease(key: string): Promise<number>;
}

const defined = new WeakSet<Redis>();
/** The connection with the two scripts (sent once, then by their SHA1). */
function scripts(redis: Redis): Redis & QuotaCommands {
  if (!defined.has(redis)) {
    redis.defineCommand('quotaReserve', { numberOfKeys: 1, lua: RESERVE });
    redis.defineCommand('quotaRelease', { numberOfKeys: 1, lua: RELEASE });
    defined.add(redis);
  }
  return redis as Redis & QuotaCommands;
}

/** A project's month as this process knows it. */
interface Tally {
  projectId: string;
  month: string;
  /** The database's count at its last read; null before one. */
  stored: number | null;
  /** When it was read (performance.now()). */
  readAt: number;
  reading: Promise<number> | null;
  /** Calls served here since that read began (those served during it may be in it too: counted twice, to be safe). */
  servedSince: number;
  /** Calls admitted here and not yet served or refused. */
  inFlight: number;
  /** Calls were admitted here without Redis: Redis's count is set again from the database before it decides. */
  alone: boolean;
  reseeding: Promise<void> | null;
}

/** How a call was admitted: by Redis (its reservation is given back if the call is not served) or here. */
type Admitted = { key: string } | null;

/** A Redis command failed (not the database): the breaker opens and this process decides. */
class RedisUnanswered extends Error {
  constructor(override readonly cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause));
  }
}

const unanswered = <T>(command: Promise<T>): Promise<T> =>
  command.catch((error: unknown) => {
    throw new RedisUnanswered(error);
  });

export function createQuota(options: QuotaOptions): Quota {
  const { usage, limits, now } = options;
  const tallies = new Map<string, Tally>();

  const keyOf = (tally: Tally) => `${limits.prefix}quota:${tally.projectId}:${tally.month}`;

  const tallyOf = (projectId: string, month: string): Tally => {
    const id = `${projectId}\u0000${month}`;
    let tally = tallies.get(id);
    if (!tally) {
      // A month that ended is forgotten once its calls have settled.
      for (const [other, t] of tallies) if (t.month !== month && t.inFlight === 0) tallies.delete(other);
      tally = { projectId, month, stored: null, readAt: 0, reading: null, servedSince: 0, inFlight: 0, alone: false, reseeding: null };
      tallies.set(id, tally);
    }
    return tally;
  };

  /** The database's count, read now (one read at a time per project and month). */
  const read = (tally: Tally): Promise<number> => {
    tally.reading ??= (async () => {
      const servedBefore = tally.servedSince;
      try {
        const count = await usage.get(tally.projectId, tally.month);
        tally.stored = count;
        tally.readAt = performance.now();
        tally.servedSince -= servedBefore;
        return count;
      } finally {
        tally.reading = null;
      }
    })();
    return tally.reading;
  };

  const refuse = (project: Project, quota: number, at: number): never => {
    limits.emit({ type: 'quota_exceeded', projectId: project.id });
    const renewsAt = nextMonthStart(at);
    const d = new Date(at);
    const monthSeconds = (renewsAt - Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1)) / 1000;
    throw new QuotaExceededError(quota, renewsAt, Math.max(1, Math.ceil((renewsAt - at) / 1000)), monthSeconds);
  };

  /** Decided here: the database's count (at most REFRESH_MS old) and this process's calls since; counted in flight when admitted. */
  async function admitHere(tally: Tally, quota: number | null): Promise<boolean> {
    if (quota !== null && (tally.stored === null || performance.now() - tally.readAt >= REFRESH_MS)) await read(tally);
    // Checked and counted in one step: another call of this process decides after this one is in flight.
    if (quota !== null && (tally.stored ?? 0) + tally.servedSince + tally.inFlight >= quota) return false;
    tally.inFlight += 1;
    return true;
  }

  /**
   * Decided by Redis: true when counted (and counted in flight here), false when the quota is used up. A Redis
   * command that fails throws RedisUnanswered; a database read that fails throws its own error.
   */
  async function admitInRedis(redis: Redis, tally: Tally, quota: number | null, at: number): Promise<boolean> {
    const key = keyOf(tally);
    // Kept until the month after next begins, for any instance still finishing the month.
    const expiresAt = String(nextMonthStart(nextMonthStart(at)));
    const seed = async (replace: boolean) => {
      const count = String((await read(tally)) + tally.inFlight);
      await unanswered(replace ? redis.set(key, count, 'PXAT', expiresAt) : redis.set(key, count, 'PXAT', expiresAt, 'NX'));
    };
    if (tally.alone) {
      tally.reseeding ??= seed(true)
        .then(() => {
          tally.alone = false;
        })
        .finally(() => {
          tally.reseeding = null;
        });
      await tally.reseeding;
    }
    const commands = scripts(redis);
    let [status] = await unanswered(commands.quotaReserve(key, String(quota ?? -1), expiresAt));
    if (status === -1) {
      await seed(false); // another instance may have seeded it first: its count stays
      [status] = await unanswered(commands.quotaReserve(key, String(quota ?? -1), expiresAt));
    }
    if (status === -1) throw new RedisUnanswered(new Error(`redis lost ${key} twice in a row`));
    if (status === 1) tally.inFlight += 1;
    return status === 1;
  }

  /** Admits one call of the project, counted in flight (null: decided here, else Redis's key), or throws QuotaExceededError. */
  async function admit(project: Project, tally: Tally, at: number): Promise<Admitted> {
    const quota = project.monthlyQuota;
    const redis = limits.redis();
    if (redis) {
      try {
        if (await admitInRedis(redis, tally, quota, at)) return { key: keyOf(tally) };
        return refuse(project, quota as number, at);
      } catch (error) {
        if (!(error instanceof RedisUnanswered)) throw error;
        limits.redisFailed(error.cause);
        limits.fellBack('quota', error.cause);
      }
    } else if (limits.hasRedis) limits.fellBack('quota');
    if (limits.hasRedis) tally.alone = true;
    if (!(await admitHere(tally, quota))) refuse(project, quota as number, at);
    return null;
  }

  /** The call was not served: its reservation in Redis is given back (a Redis that does not answer keeps it). */
  const giveBack = (admitted: Admitted) => {
    const redis = admitted && limits.redis();
    if (!admitted || !redis) return;
    scripts(redis)
      .quotaRelease(admitted.key)
      .catch((error: unknown) => limits.redisFailed(error));
  };

  return {
    async serve(project, call) {
      if (project.sandbox) return call();
      const at = now();
      const tally = tallyOf(project.id, monthOf(at));
      const admitted = await admit(project, tally, at);
      try {
        const result = await call();
        tally.servedSince += 1;
        return result;
      } catch (error) {
        giveBack(admitted);
        throw error;
      } finally {
        tally.inFlight -= 1;
      }
    },
  };
}

// Who is calling: a key of the right kind, not revoked (a scheduled revocation counts from its time), names
// its project. Each key's last use is recorded at most once a minute, by a background write, never on the
// request's path: `email-trust key list` shows it.
import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import { type Authenticated, type KeyKind, type Keys, kindOfToken } from '../store/keys.js';

export interface Access {
  authenticate(token: string, kind: KeyKind): Promise<Authenticated | null>;
  /** The kind a token says it is by its public prefix (nothing is looked up), or null when it has none of ours. */
  kindOf(token: string): KeyKind | null;
}

export interface RecordingAccess extends Access {
  /** Writes the last uses not yet stored. */
  close(): Promise<void>;
}

/** A key's last use is written at most this often by one instance. */
export const LAST_USED_EVERY_MS = 60_000;
/** Pending last uses are written together, this long after the first of them. */
const FLUSH_DELAY_MS = 250;
/** Keys whose last write this instance remembers; one that drops out is written again at its next use. */
const REMEMBERED_KEYS = 10_000;

export function createAccess(keys: Keys, options: { now: () => number; log: Logger }): RecordingAccess {
  const { now, log } = options;
  const written = new LRUCache<string, true>({ max: REMEMBERED_KEYS, ttl: LAST_USED_EVERY_MS, perf: { now }, ttlResolution: 0 });
  let pending = new Map<string, number>();
  let timer: NodeJS.Timeout | null = null;
  let flushing: Promise<void> = Promise.resolve();

  const flush = (): Promise<void> => {
    timer = null;
    const uses = pending;
    pending = new Map();
    flushing = flushing
      .then(() => keys.markUsed(uses))
      .catch((error: unknown) => {
        log.warn(
          { reason: (error as Error).message, keys: uses.size },
          "keys' last-used dates not stored; they are written again at the keys' next use after a minute",
        );
      });
    return flushing;
  };

  return {
    async authenticate(token, kind) {
      const at = now();
      const found = await keys.authenticate(token, kind, at);
      if (found && !written.has(found.keyId)) {
        written.set(found.keyId, true);
        pending.set(found.keyId, at);
        timer ??= setTimeout(flush, FLUSH_DELAY_MS).unref();
      }
      return found;
    },
    kindOf: kindOfToken,
    async close() {
      if (timer) clearTimeout(timer);
      await flush();
    },
  };
}

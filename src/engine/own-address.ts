// A subject's history with the request's own address set apart (OwnAddress, plugin.ts): the store works it
// out where it read the history (on an embedded file, its thread), so that a request receives the 19
// entries it lists and a few counts instead of the 100 addresses read; a reader that did not (a test's)
// leaves it to the velocity plugin, which calls the same function.
import type { OwnAddress, Velocity, VelocityEntry } from './plugin.js';

/** `history` (every address read, newest first) as answered to a query with `own`. */
export function withOwnAddress(history: Velocity, own: OwnAddress): Velocity {
  const list: VelocityEntry[] = [];
  const othersSince = own.since.map(() => 0);
  let others = 0;
  let seen = false;
  for (const entry of history.emails) {
    if (entry.email.toLowerCase() === own.address) {
      seen = true;
      continue;
    }
    others += 1;
    if (list.length < own.list) list.push(entry);
    for (let i = 0; i < own.since.length; i++) if (entry.at >= (own.since[i] as number)) othersSince[i] = (othersSince[i] as number) + 1;
  }
  return { emails: list, distinctEmails: history.distinctEmails, total: history.total, since: history.since, own: { seen, others, othersSince } };
}

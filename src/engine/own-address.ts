// A subject's history with the request's own address set apart (OwnAddress, plugin.ts): the store works it
// out where it read the history (on an embedded file, its thread), so that a request receives the 19
// entries it lists and a few counts instead of the 100 addresses read; a reader that did not (a test's)
// leaves it to the velocity plugin, which calls the same function.
import type { OwnAddress, OwnAnswer, Velocity, VelocityEntry } from './plugin.js';

/** `history` (every address read, newest first) as answered to a query with `own`. */
export function withOwnAddress(history: Velocity, own: OwnAddress): Velocity {
  const { emails } = history;
  const { list, answer } = setApart(
    emails.length,
    (i) => (emails[i] as VelocityEntry).email,
    (i) => (emails[i] as VelocityEntry).at,
    own,
  );
  return { emails: list, distinctEmails: history.distinctEmails, total: history.total, since: history.since, own: answer };
}

/**
 * The `n` addresses read (the i-th's address and time by `address(i)`, `at(i)`, newest first) with the
 * request's own set apart: the entries of the others to list, and the answer's counts.
 */
export function setApart(n: number, address: (i: number) => string, at: (i: number) => number, own: OwnAddress): { list: VelocityEntry[]; answer: OwnAnswer } {
  const list: VelocityEntry[] = [];
  const othersSince = own.since.map(() => 0);
  let others = 0;
  let seen = false;
  for (let k = 0; k < n; k++) {
    const email = address(k);
    if (email.toLowerCase() === own.address) {
      seen = true;
      continue;
    }
    others += 1;
    const time = at(k);
    if (list.length < own.list) list.push({ email, at: time });
    for (let i = 0; i < own.since.length; i++) if (time >= (own.since[i] as number)) othersSince[i] = (othersSince[i] as number) + 1;
  }
  return { list, answer: { seen, others, othersSince } };
}

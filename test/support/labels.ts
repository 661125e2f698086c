// Labels as feedback stores them, for tests of the reputation facts: a label of a decision of an address
// (its base, domain, IPs and device as its event stores them), and a store's reputation reader.
import type { ReputationReader } from '../../src/engine/plugin.js';
import type { Store } from '../../src/store/database.js';
import { eventSubject, type NewLabel } from '../../src/store/labels.js';

let events = 0;

/** A label of a new decision of `email` in `projectId`: fraud, now, not shared, unless `over` says otherwise. */
export function labelFor(projectId: string, email: string, at: number, over: Partial<NewLabel> = {}): NewLabel {
  events += 1;
  return {
    projectId,
    subject: eventSubject(events),
    eventId: events,
    decisionId: null,
    email,
    baseEmail: email.toLowerCase(),
    domain: email.slice(email.indexOf('@') + 1),
    ipv4: null,
    ipv6: null,
    device: null,
    label: 'fraud',
    note: null,
    source: 'api',
    labelledAt: at,
    shared: false,
    ...over,
  };
}

/** The reputation reader of `projectIds`, asking the store when a test reads (it may open in beforeAll). */
export function reputationOf(store: () => Store, projectIds: () => readonly string[]): ReputationReader {
  return { read: (q) => store().labels.reputationReader(projectIds()).read(q) };
}

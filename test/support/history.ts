// A project's history for plugin tests, on a real store: earlier validations as the service records them,
// and the store's velocity reader for a store opened later (in beforeAll), bound to one project.
import type { VelocityReader } from '../../src/engine/plugin.js';
import type { Store } from '../../src/store/database.js';
import type { NewEvent } from '../../src/store/events.js';

/** A verify event of `email` in `projectId` at `at` (ms), with the request's IP, device or token fields. */
export function pastEvent(projectId: string, email: string, at: number, fields: Partial<NewEvent> = {}): NewEvent {
  return { projectId, endpoint: 'verify', email, emailLower: email.toLowerCase(), baseEmail: email.toLowerCase(), action: 'allow', createdAt: at, ...fields };
}

/** The velocity reader of `projectId` on the store `storeOf` returns when a read is made (one opened after this is called). */
export function readerOf(storeOf: () => Store, projectId: string): VelocityReader {
  const reader = () => storeOf().events.velocityReader(projectId);
  return {
    byIp: (query) => reader().byIp(query),
    byDevice: (query) => reader().byDevice(query),
    spread: (query) => reader().spread(query),
    tokenUses: (query) => reader().tokenUses(query),
  };
}

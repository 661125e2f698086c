// The network of a run with network checks off (NETWORK_CHECKS=off, a replay, a test): every lookup
// answers at once, as unknown, so the plugins that read it answer "not checked".
import type { NetworkAccess } from '../engine/plugin.js';

const offline = { status: 'error', reason: 'network checks are off' } as const;
const unknown = { status: 'unknown', reason: 'network checks are off' } as const;

/** No network: every lookup answers "unknown" at once. */
export const OFFLINE: NetworkAccess = {
  enabled: false,
  dns: { mx: async () => offline, a: async () => offline, aaaa: async () => offline },
  registration: { registered: async () => unknown },
  website: { hasWebsite: async () => unknown },
  blocklists: { domain: async () => [], ip: async () => [] },
};

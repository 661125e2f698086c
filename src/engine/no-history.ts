// A project without history or labels: what policy tests, plugin tests, replays and bulk runs read when they have none.
import type { Reputation, ReputationQuery, ReputationReader, VelocityReader } from './plugin.js';

const empty = async ({ since }: { since: number[] }) => ({ emails: [], distinctEmails: 0, total: 0, since: since.map(() => 0) });

const noSpread = async () => ({ seen: [], distinct: 0, total: 0 });

export const noHistory: VelocityReader = { byIp: empty, byDevice: empty, spread: noSpread, tokenUses: async () => [] };

const NO_LABELS = Object.freeze({});

/** No labels: every subject asked has none. */
export const noReputation: ReputationReader = {
  read: async (q: ReputationQuery): Promise<Reputation> => ({
    email: q.baseEmail ? NO_LABELS : null,
    domain: q.domain ? NO_LABELS : null,
    network: q.ipv4 || q.ipv6 ? NO_LABELS : null,
    device: q.device ? NO_LABELS : null,
  }),
};

// A project without history: what policy tests and plugin tests read when they declare none.
import type { VelocityReader } from './plugin.js';

const empty = async ({ since }: { since: number[] }) => ({ emails: [], distinctEmails: 0, total: 0, since: since.map(() => 0) });

const noSpread = async () => ({ seen: [], distinct: 0, total: 0 });

export const noHistory: VelocityReader = { byIp: empty, byDevice: empty, spread: noSpread, tokenUses: async () => [] };

// Whether the address's domain serves a website, through ctx.network.website (which refuses private
// and metadata addresses and bounds the time). A signal for domain health; it has no check of its own.
import type { FactValues, Plugin } from '../../src/engine/plugin.js';
import { asciiDomainOf } from '../plugin-data.js';

const plugin: Plugin = {
  id: 'website',
  description: 'Asks whether the domain answers HTTP(S) requests: HEAD / over HTTPS and HTTP, public addresses only, no redirects followed.',
  steps: [],
  io: true,
  network: true,
  facts: {
    has_website: { type: 'boolean', description: 'The domain answers HTTP(S) at / (2xx, 401, 403, or a redirect within the site); null when unknown.' },
  },
  checks: {},
  needs: ['structure', 'idn'],
  async run(ctx): Promise<FactValues> {
    const domain = await asciiDomainOf(ctx);
    if (domain === null || !ctx.network.enabled) return {};
    const found = await ctx.network.website.hasWebsite(domain).catch(() => null);
    return found?.status === 'ok' ? { has_website: found.value } : {};
  },
};

export default plugin;

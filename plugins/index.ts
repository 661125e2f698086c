// The registry: an explicit, sorted list of every plugin, one line each. Adding a check is its folder,
// one line here and `npm run docs`: a plugin declares its own steps, codes and checked types, and
// register() refuses words that are malformed or another plugin's (plugins/register.ts).
import type { Plugin } from '../src/engine/plugin.js';
import { register } from './register.js';

const plugins: readonly Plugin[] = (
  await Promise.all([
    import('./allowed-domains/index.js'),
    import('./deliverability/index.js'),
    import('./device/index.js'),
    import('./disposable/index.js'),
    import('./disposable-infrastructure/index.js'),
    import('./dns/index.js'),
    import('./dnsbl/index.js'),
    import('./dnsbl-ip/index.js'),
    import('./domain-age/index.js'),
    import('./domain-form/index.js'),
    import('./domain-health/index.js'),
    import('./domain-shape/index.js'),
    import('./education/index.js'),
    import('./exempt-list/index.js'),
    import('./fraud-pattern/index.js'),
    import('./free-provider/index.js'),
    import('./government/index.js'),
    import('./idn/index.js'),
    import('./ip-intelligence/index.js'),
    import('./ip-network/index.js'),
    import('./known-abuse/index.js'),
    import('./length/index.js'),
    import('./local-part/index.js'),
    import('./normalize/index.js'),
    import('./reputation/index.js'),
    import('./request-ip/index.js'),
    import('./risk/index.js'),
    import('./role-based/index.js'),
    import('./spam-trap/index.js'),
    import('./structure/index.js'),
    import('./subdomain/index.js'),
    import('./tld/index.js'),
    import('./typo/index.js'),
    import('./velocity/index.js'),
    import('./website/index.js'),
  ])
).map((module) => module.default);

export const registry: readonly Plugin[] = register(plugins);

// The one guard of the disposable list, in plain JavaScript so that both its users load it without a build:
// plugins/disposable/data/build.mjs (node, at build time, over the shipped lists) and ../disposable-guard.ts
// (the service's `data update`, over the lists it loaded). Each reads the three lists its own way and hands
// them here; the refusals and their order live only here (guard.test.ts holds the two users to it).
import { getPublicSuffix } from 'tldts';

/** The reasons the guard refuses a domain, in the order it tries them. */
export const REFUSALS = Object.freeze(['never-disposable', 'university', 'free provider', 'ICANN public suffix', 'private suffix']);

/** The domain itself or a parent of it is in `set`. */
export function under(domain, set) {
  for (let name = domain; name.includes('.'); name = name.slice(name.indexOf('.') + 1)) if (set.has(name)) return true;
  return false;
}

/** The free-provider list's domains, from the text of plugins/free-provider/data/providers.json. */
export function freeProviderDomains(providersJson) {
  return new Set(Object.values(JSON.parse(providersJson)).flatMap((provider) => provider.domains));
}

/**
 * The guard over the given lists: `(domain, reviewed) => reason | null`, where `reviewed` says the reviewed
 * list has the domain and the reason is one of REFUSALS.
 */
export function guardOf({ never, universities, freeProviders }) {
  return (domain, reviewed) => {
    if (under(domain, never)) return 'never-disposable';
    if (under(domain, universities)) return 'university';
    if (freeProviders.has(domain)) return 'free provider';
    // An ICANN suffix (nom.za) would stand for every domain below it in a parent lookup.
    if (getPublicSuffix(domain, { allowPrivateDomains: false }) === domain) return 'ICANN public suffix';
    // A shared-hosting or dynamic-DNS zone (za.com, msk.ru) flags every customer's host below it: only the
    // reviewed list may do that (its dynv6 zones, disposable/README.md).
    if (!reviewed && getPublicSuffix(domain, { allowPrivateDomains: true }) === domain) return 'private suffix';
    return null;
  };
}

// build.mjs's guard of the disposable list, for the updates `email-trust data update` installs: domains that
// must never be called disposable, from the disposable plugin's own never-disposable.txt and the lists of two
// neighbours (universities, free providers), read only when an update runs. A shared module, as a plugin
// reads a neighbour's data only through one (the layering test).
import { getPublicSuffix } from 'tldts';
import { readDataFile, readList } from './plugin-data.js';

/** The domain itself or a parent of it is in `set`. */
function under(domain: string, set: ReadonlySet<string>): boolean {
  for (let name = domain; name.includes('.'); name = name.slice(name.indexOf('.') + 1)) if (set.has(name)) return true;
  return false;
}

/** Why the guard refuses a domain (`reviewed`: the reviewed list has it), or null; the lists are read on the call. */
export function disposableGuard(): (domain: string, reviewed: boolean) => string | null {
  const never = readList('disposable', 'never-disposable.txt');
  const universities = readList('education', 'domains.txt');
  const providers = JSON.parse(readDataFile('free-provider', 'providers.json')) as Record<string, { domains: string[] }>;
  const free = new Set(Object.values(providers).flatMap((p) => p.domains));
  return (domain, reviewed) => {
    if (under(domain, never)) return 'never-disposable';
    if (under(domain, universities)) return 'university';
    if (free.has(domain)) return 'free provider';
    // An ICANN suffix (nom.za) would stand for every domain below it in a parent lookup.
    if (getPublicSuffix(domain, { allowPrivateDomains: false }) === domain) return 'ICANN public suffix';
    // A shared-hosting or dynamic-DNS zone flags every customer's host below it: only the reviewed list may.
    if (!reviewed && getPublicSuffix(domain, { allowPrivateDomains: true }) === domain) return 'private suffix';
    return null;
  };
}

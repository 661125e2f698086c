// The guard of the disposable list for the updates `email-trust data update` installs: domains that must
// never be called disposable, from the disposable plugin's own never-disposable.txt and the lists of two
// neighbours (universities, free providers), read only when an update runs. A shared module, as a plugin
// reads a neighbour's data only through one (the layering test). The rule itself is disposable-guard-rule.mjs,
// the very module plugins/disposable/data/build.mjs applies (plain JavaScript, so the build needs no compile);
// it is loaded from the package folder because dist/ holds only what tsc emits.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { packageRoot } from '../src/paths.js';
import { readDataFile, readList } from './plugin-data.js';

type GuardRule = typeof import('./disposable-guard-rule.mjs');

export type { Refusal } from './disposable-guard-rule.mjs';

const rule = (await import(pathToFileURL(join(packageRoot, 'plugins', 'disposable-guard-rule.mjs')).href)) as GuardRule;

/** The guard's reasons, in the order it tries them. */
export const REFUSALS = rule.REFUSALS;

/** Why the guard refuses a domain (`reviewed`: the reviewed list has it), or null; the lists are read on the call. */
export function disposableGuard(): ReturnType<GuardRule['guardOf']> {
  return rule.guardOf({
    never: readList('disposable', 'never-disposable.txt'),
    universities: readList('education', 'domains.txt'),
    freeProviders: rule.freeProviderDomains(readDataFile('free-provider', 'providers.json')),
  });
}

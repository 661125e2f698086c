// Disposable (throwaway) mailbox providers: a curated list matched on the domain and its parents,
// with the project's own additions and exemptions; privacy relays and big providers are never flagged.
import { disposableDomains as listed } from '../disposable-domains.js';
import { listedDomainPlugin } from '../listed-domain.js';
import { dataLists, readList, reloadList } from '../plugin-data.js';
import { UPSTREAM_FORMATS } from './upstream.js';

const never = readList('disposable', 'never-disposable.txt');

const plugin = listedDomainPlugin({
  id: 'disposable',
  description: "Flags domains of disposable (throwaway) mailbox providers, from a curated list plus the project's additions and exemptions.",
  check: 'disposable_domain',
  checkDescription: 'The domain belongs to a disposable (temporary, throwaway) mailbox provider.',
  flag: 'is_disposable_domain',
  flagDescription: 'The domain or a parent up to the registrable domain is a disposable mailbox provider.',
  match: 'disposable_match',
  code: 'domain_is_disposable',
  codeMeaning: 'the domain is a disposable (throwaway) mailbox provider',
  what: 'disposable',
  listed,
  never,
  // One-slip typos of the big providers (gmial.com, hotmial.com) are on the upstream list because they
  // catch mistyped mail; the sign-up form should offer the correction, not refuse the person. Two-slip
  // near misses (4mail.cf ~ email.cz) are throwaway services in their own right: still blocked (README.md).
  unless: { plugin: 'typo', when: { fact: 'typo_edits', operator: 'equal', value: 1 } },
  data: declaration(),
});

/** The data declaration of the lists as loaded now. */
function declaration() {
  return dataLists(
    'disposable',
    [
      { file: 'domains.txt', entries: listed.size },
      { file: 'never-disposable.txt', entries: never.size },
    ],
    UPSTREAM_FORMATS,
  );
}

// Both sets are shared (disposable-infrastructure reads the domains too): reloadList swaps their entries in place.
plugin.reloadData = async () => {
  reloadList('disposable', 'domains.txt');
  reloadList('disposable', 'never-disposable.txt');
  plugin.data = declaration();
};

export default plugin;

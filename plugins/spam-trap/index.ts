// Domains associated with spam traps (addresses that exist only to catch senders of unsolicited mail): a
// shipped list (empty for now, see README) matched on the domain and its parents, plus the project's lists.
import { listedDomainPlugin } from '../listed-domain.js';
import { dataLists, readList } from '../plugin-data.js';

const listed = readList('spam-trap', 'domains.txt');

export default listedDomainPlugin({
  id: 'spam-trap',
  description: "Flags domains associated with spam traps, from a shipped list plus the project's additions and exemptions.",
  check: 'spam_trap_domain',
  checkDescription: "The domain is associated with spam traps (shipped list and the project's additions).",
  flag: 'is_spam_trap_domain',
  flagDescription: 'The domain or a parent up to the registrable domain is associated with spam traps.',
  match: 'spam_trap_match',
  code: 'domain_is_spam_trap',
  codeMeaning: 'the domain is a spam trap',
  what: 'spam-trap domains',
  listed,
  data: dataLists('spam-trap', [{ file: 'domains.txt', entries: listed.size }]),
});

// Domains associated with spam traps (addresses that exist only to catch senders of unsolicited mail): a
// shipped list (empty for now, see README) matched on the domain and its parents, plus the project's lists,
// plus, when the check's labelled_at_least is set, the domains the project's feedback labelled spam_trap that many times.
import { listedByLabels, listedDomainPlugin } from '../listed-domain.js';
import { dataLists, readList } from '../plugin-data.js';

const listed = readList('spam-trap', 'domains.txt');

export default listedDomainPlugin({
  id: 'spam-trap',
  description:
    "Flags domains associated with spam traps, from a shipped list plus the project's additions and exemptions and, with labelled_at_least, its spam_trap labels.",
  check: 'spam_trap_domain',
  checkDescription: "The domain is associated with spam traps (shipped list and the project's additions).",
  flag: 'is_spam_trap_domain',
  flagDescription: 'The domain or a parent up to the registrable domain is associated with spam traps.',
  match: 'spam_trap_match',
  code: 'domain_is_spam_trap',
  codeMeaning: 'the domain is a spam trap',
  what: 'spam-trap domains',
  listed,
  listedBy: [listedByLabels(['spam_trap'])],
  data: dataLists('spam-trap', [{ file: 'domains.txt', entries: listed.size }]),
});

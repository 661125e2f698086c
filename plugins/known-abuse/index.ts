// Domains known as sources of abuse or spam: a shipped list (empty for now, see README) matched on the
// domain and its parents, plus the project's own additions and exemptions, plus the deployment's DNS
// blocklists (the dnsbl plugin), plus, when the check's labelled_at_least is set, the domains the project's
// feedback labelled fraud or abuse that many times (the reputation plugin).
import { listedByLabels, listedDomainPlugin } from '../listed-domain.js';
import { dataLists, readList } from '../plugin-data.js';

const listed = readList('known-abuse', 'domains.txt');

export default listedDomainPlugin({
  id: 'known-abuse',
  description:
    "Flags domains known as sources of abuse or spam, from a shipped list, the project's additions and exemptions, the DNS blocklists and, with labelled_at_least, the project's fraud and abuse labels.",
  check: 'known_abuse_domain',
  checkDescription: "The domain is a known source of abuse or spam (shipped list, the project's additions, the DNS blocklists).",
  flag: 'is_known_abuse_domain',
  flagDescription:
    'The domain or a parent up to the registrable domain is a known abuse or spam source: on a list, or listed as abusive by a DNS blocklist (dnsbl_domain_listed).',
  match: 'known_abuse_match',
  code: 'domain_is_known_abuse',
  codeMeaning: 'the domain is a known source of abuse or spam',
  what: 'abuse sources',
  listed,
  // A DNS blocklist's abuse listing is known abuse too (docs/decisions/0086-dnsbl.md); the project's exemptions still win.
  listedBy: [
    { plugin: 'dnsbl', facts: ['dnsbl_domain_listed'], lists: ([listed]) => listed === true, match: 'registrable' },
    listedByLabels(['fraud', 'abuse']),
  ],
  data: dataLists('known-abuse', [{ file: 'domains.txt', entries: listed.size }]),
});

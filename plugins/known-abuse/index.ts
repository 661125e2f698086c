// Domains known as sources of abuse or spam: a shipped list (empty for now, see README) matched on the
// domain and its parents, plus the project's own additions and exemptions.
import { listedDomainPlugin } from '../listed-domain.js';
import { dataLists, readList } from '../plugin-data.js';

const listed = readList('known-abuse', 'domains.txt');

export default listedDomainPlugin({
  id: 'known-abuse',
  description: "Flags domains known as sources of abuse or spam, from a shipped list plus the project's additions and exemptions.",
  check: 'known_abuse_domain',
  checkDescription: "The domain is a known source of abuse or spam (shipped list and the project's additions).",
  flag: 'is_known_abuse_domain',
  flagDescription: 'The domain or a parent up to the registrable domain is a known abuse or spam source.',
  match: 'known_abuse_match',
  code: 'domain_is_known_abuse',
  codeMeaning: 'the domain is a known source of abuse or spam',
  what: 'abuse sources',
  listed,
  data: dataLists('known-abuse', [{ file: 'domains.txt', entries: listed.size }]),
});

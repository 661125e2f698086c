// Figures for issue 16: how much of a well-known free-mail list the free-provider data covers, with the
// providers' documented subdomains, and what it misses. The list: npm email-providers 2.26.0 common.json
// (ISC, devDependency; 355 domains "common eMail providers"), which this data is not built from.
// Usage (from the repository root): node plugins/free-provider/data/coverage.mjs [checkout root] [--list]
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const args = process.argv.slice(2);
const root = resolve(args.find((arg) => !arg.startsWith('--')) ?? fileURLToPath(new URL('../../..', import.meta.url)));
const providers = JSON.parse(readFileSync(resolve(root, 'plugins/free-provider/data/providers.json'), 'utf8'));
const disposable = new Set(readFileSync(resolve(root, 'plugins/disposable/data/domains.txt'), 'utf8').split('\n'));

const byDomain = new Set(Object.values(providers).flatMap((p) => p.domains));
const parents = Object.values(providers).flatMap((p) => p.subdomains_of ?? []);
const covered = (domain) => byDomain.has(domain) || parents.some((parent) => domain.endsWith(`.${parent}`));

const list = require('email-providers/common.json');
const missed = list.filter((domain) => !covered(domain));
// The list mixes in throwaway services (mailinator.com, yopmail.com): those are the disposable check's.
const mailbox = list.filter((domain) => !disposable.has(domain));
const mailboxMissed = mailbox.filter((domain) => !covered(domain));
const pct = (n, total) => `${((100 * n) / total).toFixed(1)} %`;
console.log(`checkout: ${root}`);
console.log(
  `email-providers 2.26.0 common.json: ${list.length} domains, covered ${list.length - missed.length} (${pct(list.length - missed.length, list.length)})`,
);
console.log(
  `  without the ${list.length - mailbox.length} the shipped disposable list holds: ${mailbox.length}, covered ${mailbox.length - mailboxMissed.length} (${pct(mailbox.length - mailboxMissed.length, mailbox.length)})`,
);
if (args.includes('--list')) console.log(`  missed: ${mailboxMissed.join(' ')}`);

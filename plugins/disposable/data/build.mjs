import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { getPublicSuffix } from 'tldts';
import { packed as packedIn } from '../../../scripts/npm-pack.mjs';

const { values: args } = parseArgs({ options: { lists: { type: 'string', default: '/tmp/email-trust-disposable-sources' } } });
const require = createRequire(import.meta.url);
const here = (file) => new URL(`./${file}`, import.meta.url);
const lines = (text) =>
  text
    .split('\n')
    .map((l) => l.trim().toLowerCase())
    .filter((l) => l && !l.startsWith('#'));

/** The packed sources, pinned: name, version, license, family (lists of one family copy each other), reader. */
const PACKED = [
  {
    name: 'mailchecker',
    version: '6.0.21',
    license: 'MIT',
    family: 'mailchecker',
    read: (dir) => {
      const source = readFileSync(join(dir, 'platform/node/index.js'), 'utf8');
      const start = source.indexOf('new Set(') + 'new Set('.length;
      return JSON.parse(source.slice(start, source.indexOf('])', start) + 1));
    },
  },
  // ivolo's list (npm disposable-email-domains), its successor tompec's (npm disposable-domains) and wesbos's
  // burner list share most entries (burner: 50,628 of 57,070 are in ivolo's): one family, one vote.
  {
    name: 'disposable-email-domains',
    version: '1.0.62',
    license: 'MIT',
    family: 'ivolo',
    read: (dir) => JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8')),
  },
  { name: 'disposable-domains', version: '2.0.1', license: 'MIT', family: 'ivolo', read: (dir) => JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8')) },
  { name: 'burner-email-providers', version: '1.0.67', license: 'MIT', family: 'ivolo', read: (dir) => lines(readFileSync(join(dir, 'emails.txt'), 'utf8')) },
];

const TRUSTED = 'disposable-email-domains-js';
const trustedMeta = require(`${TRUSTED}/package.json`);
const sources = [
  {
    name: TRUSTED,
    version: trustedMeta.version,
    license: trustedMeta.license,
    family: 'reviewed',
    entries: require(`${TRUSTED}/dist/dict/disposable_email_blocklist.json`),
  },
  ...PACKED.map((s) => ({ ...s, entries: s.read(packedIn(args.lists, s.name, s.version)) })),
];

const never = new Set(lines(readFileSync(here('never-disposable.txt'), 'utf8')));
const universities = new Set(lines(readFileSync(new URL('../../education/data/domains.txt', import.meta.url), 'utf8')));
const providers = JSON.parse(readFileSync(new URL('../../free-provider/data/providers.json', import.meta.url), 'utf8'));
const freeProviders = new Set(Object.values(providers).flatMap((p) => p.domains));

/** The domain itself or a parent of it is in `set`. */
function under(domain, set) {
  for (let name = domain; name.includes('.'); name = name.slice(name.indexOf('.') + 1)) if (set.has(name)) return true;
  return false;
}

/** Why the guard refuses a domain (`reviewed`: the reviewed list has it), or null. */
function guard(domain, reviewed) {
  if (under(domain, never)) return 'never-disposable.txt';
  if (under(domain, universities)) return 'university (education/data/domains.txt)';
  if (freeProviders.has(domain)) return 'free provider (free-provider/data/providers.json)';
  // An ICANN suffix (nom.za) would stand for every domain below it in a parent lookup.
  if (getPublicSuffix(domain, { allowPrivateDomains: false }) === domain) return 'ICANN public suffix';
  // A shared-hosting or dynamic-DNS zone (za.com, msk.ru) flags every customer's host below it: only the
  // reviewed list may do that (its dynv6 zones, README.md).
  if (!reviewed && getPublicSuffix(domain, { allowPrivateDomains: true }) === domain) return 'private suffix, not on the reviewed list';
  return null;
}

const DOMAIN = /^[a-z0-9-]+(?:\.[a-z0-9-]+)+$/;
/** domain → the families that list it; per source, its valid entries. */
const families = new Map();
for (const source of sources) {
  source.valid = new Set();
  source.malformed = 0;
  for (const raw of source.entries) {
    const domain = String(raw).trim().toLowerCase();
    if (!DOMAIN.test(domain)) {
      source.malformed++;
      continue;
    }
    source.valid.add(domain);
    if (!families.has(domain)) families.set(domain, new Set());
    families.get(domain).add(source.family);
  }
}

const kept = new Set();
const removed = new Map();
const addedBy = new Map(sources.map((s) => [s.name, 0]));
for (const [domain, listedBy] of families) {
  const counts = listedBy.has('reviewed') || listedBy.size >= 2;
  if (!counts) continue;
  const why = guard(domain, listedBy.has('reviewed'));
  if (why) {
    if (!removed.has(why)) removed.set(why, []);
    removed.get(why).push(domain);
    continue;
  }
  kept.add(domain);
}
// What each source added: the kept domains it lists that the reviewed list does not (an agreement counts for each voter).
const reviewed = sources[0].valid;
for (const source of sources.slice(1)) addedBy.set(source.name, [...source.valid].filter((d) => kept.has(d) && !reviewed.has(d)).length);
addedBy.set(TRUSTED, [...reviewed].filter((d) => kept.has(d)).length);

const sorted = [...kept].sort();
const header = [
  `# Disposable email domains: ${sources.map((s) => `${s.name} ${s.version} (${s.license})`).join(', ')}.`,
  '# Rule: on the reviewed list, or on two independent families of the others; less the guard (SOURCE.md).',
  '# Generated by plugins/disposable/data/build.mjs; do not edit by hand (see SOURCE.md).',
];
writeFileSync(here('domains.txt'), `${[...header, ...sorted].join('\n')}\n`);

// MIT asks that each source's copyright and permission notice travel with the copies: NOTICES.txt keeps them.
const notices = PACKED.map((s) => {
  const file = join(packedIn(args.lists, s.name, s.version), 'LICENSE');
  const text = existsSync(file) ? readFileSync(file, 'utf8').trim() : `${s.license} (package.json); the package has no LICENSE file.`;
  return `== ${s.name} ${s.version} ==\n${text}\n`;
});
writeFileSync(
  here('NOTICES.txt'),
  `Notices of the MIT-licensed lists domains.txt is built from (build.mjs writes this file; see SOURCE.md).\n\n${notices.join('\n')}`,
);

const fmt = (n) => n.toLocaleString('en-US');
console.log('source (family): entries, malformed, kept by the rule, added beyond the reviewed list');
for (const s of sources) {
  const keptOf = [...s.valid].filter((d) => kept.has(d)).length;
  console.log(`  ${s.name} ${s.version} ${s.license} (${s.family}): ${fmt(s.entries.length)}, ${s.malformed}, ${fmt(keptOf)}, +${fmt(addedBy.get(s.name))}`);
}
console.log(`written: ${fmt(sorted.length)} domains`);
for (const [why, domains] of removed) console.log(`removed by the guard (${why}, ${domains.length}): ${domains.sort().join(' ')}`);
const free = new Set(lines(readFileSync(require.resolve('freemail/data/free.txt'), 'utf8')));
const review = sorted.filter((d) => free.has(d));
console.log(`kept and on freemail's free.txt, to review (${review.length}): ${review.join(' ') || '-'}`);

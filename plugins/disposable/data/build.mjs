// Builds domains.txt (and NOTICES.txt) from the reviewed list and the packed lists, by the rule and guard of
// SOURCE.md ("The rule"). Run from the repository root: node plugins/disposable/data/build.mjs [--lists DIR].
// Importing it builds nothing: guard.test.ts reads its guard (shippedGuard) and its vote (counts).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { getDomain } from 'tldts';
import { packed as packedIn } from '../../../scripts/npm-pack.mjs';
import { freeProviderDomains, guardOf } from '../../disposable-guard-rule.mjs';

const require = createRequire(import.meta.url);
const here = (file) => new URL(`./${file}`, import.meta.url);
const lines = (text) =>
  text
    .split('\n')
    .map((l) => l.trim().toLowerCase())
    .filter((l) => l && !l.startsWith('#'));

/**
 * The packed sources, pinned: name, version, license, family (lists of one family copy each other), reader; in
 * the ivolo family, `maintained` marks the list still published (tompec's) and `frozen` the two it grew from.
 */
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
    frozen: true,
    read: (dir) => JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8')),
  },
  {
    name: 'disposable-domains',
    version: '2.0.1',
    license: 'MIT',
    family: 'ivolo',
    maintained: true,
    read: (dir) => JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8')),
  },
  {
    name: 'burner-email-providers',
    version: '1.0.67',
    license: 'MIT',
    family: 'ivolo',
    frozen: true,
    read: (dir) => lines(readFileSync(join(dir, 'emails.txt'), 'utf8')),
  },
];

const TRUSTED = 'disposable-email-domains-js';

/** Where each reason of the guard comes from, for the build's report. */
const WHERE = {
  'never-disposable': 'never-disposable.txt',
  university: 'university, education/data/domains.txt',
  'free provider': 'free provider, free-provider/data/providers.json',
  'ICANN public suffix': 'ICANN public suffix',
  'private suffix': 'private suffix, not on the reviewed list',
};

/** The guard over the shipped lists (never-disposable.txt, the universities, the free providers): disposable-guard-rule.mjs. */
export function shippedGuard() {
  return guardOf({
    never: new Set(lines(readFileSync(here('never-disposable.txt'), 'utf8'))),
    universities: new Set(lines(readFileSync(new URL('../../education/data/domains.txt', import.meta.url), 'utf8'))),
    freeProviders: freeProviderDomains(readFileSync(new URL('../../free-provider/data/providers.json', import.meta.url), 'utf8')),
  });
}

/** A registrable domain (one label below a public suffix, ICANN or private): no host below someone's domain. */
export const registrable = (domain) => getDomain(domain, { allowPrivateDomains: true }) === domain;

/**
 * The rule, before the guard: `listedBy` holds the families that list the domain, `fresh` that the ivolo
 * family's maintained list has it and neither of the family's frozen lists does.
 */
export function counts(domain, listedBy, fresh) {
  if (listedBy.has('reviewed') || listedBy.size >= 2) return true;
  // One family alone: only a fresh entry of its maintained list, and only a registrable domain (SOURCE.md, rule 3).
  return fresh && listedBy.has('ivolo') && registrable(domain);
}

function main() {
  const { values: args } = parseArgs({ options: { lists: { type: 'string', default: '/tmp/email-trust-disposable-sources' } } });
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
  const guard = shippedGuard();

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
  const maintained = sources.filter((s) => s.maintained).map((s) => s.valid);
  const frozen = sources.filter((s) => s.frozen).map((s) => s.valid);
  const isFresh = (domain) => maintained.some((list) => list.has(domain)) && !frozen.some((list) => list.has(domain));

  const kept = new Set();
  const removed = new Map();
  let freshKept = 0;
  for (const [domain, listedBy] of families) {
    if (!counts(domain, listedBy, isFresh(domain))) continue;
    const why = guard(domain, listedBy.has('reviewed'));
    if (why) {
      if (!removed.has(why)) removed.set(why, []);
      removed.get(why).push(domain);
      continue;
    }
    kept.add(domain);
    if (listedBy.size === 1 && !listedBy.has('reviewed')) freshKept++;
  }
  // What each source added: the kept domains it lists that the reviewed list does not (an agreement counts for each voter).
  const reviewed = sources[0].valid;
  const addedBy = new Map(sources.map((s) => [s.name, [...s.valid].filter((d) => kept.has(d) && !reviewed.has(d)).length]));
  addedBy.set(TRUSTED, [...reviewed].filter((d) => kept.has(d)).length);

  const sorted = [...kept].sort();
  const header = [
    `# Disposable email domains: ${sources.map((s) => `${s.name} ${s.version} (${s.license})`).join(', ')}.`,
    '# Rule: on the reviewed list, on two independent families of the others, or a fresh registrable entry of tompec; less the guard (SOURCE.md).',
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
  console.log(
    `written: ${fmt(sorted.length)} domains, ${fmt(freshKept)} of them by rule 3 (a fresh registrable entry of the maintained ivolo-family list alone)`,
  );
  for (const [why, domains] of removed) console.log(`removed by the guard (${WHERE[why]}, ${domains.length}): ${domains.sort().join(' ')}`);
  const free = new Set(lines(readFileSync(require.resolve('freemail/data/free.txt'), 'utf8')));
  const review = sorted.filter((d) => free.has(d));
  console.log(`kept and on freemail's free.txt, to review (${review.length}): ${review.join(' ') || '-'}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();

// Builds suffixes.txt, the government suffixes of the Public Suffix List (ICANN section, from the psl
// package, each confirmed an ICANN suffix by tldts), and checks the hand-curated domains.txt.
// Run from the repository root: node plugins/government/data/build.mjs
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { getPublicSuffix } from 'tldts';
import { toUnicode as idnaToUnicode, toASCII } from 'tr46';

const require = createRequire(import.meta.url);
const here = dirname(fileURLToPath(import.meta.url));
const pslRoot = dirname(dirname(require.resolve('psl'))); // its main is dist/psl.cjs

const IDNA = { checkBidi: true, checkJoiners: true, checkHyphens: false, useSTD3ASCIIRules: true, transitionalProcessing: false, verifyDNSLength: false };
const HOST = /^[a-z0-9-]+(\.[a-z0-9-]+)*$/;

function toUnicode(label) {
  return idnaToUnicode(label, IDNA).domain;
}

function ascii(name) {
  const converted = toASCII(name.toLowerCase(), IDNA);
  return converted !== null && HOST.test(converted) ? converted : null;
}

/** First labels that mean "government" or "military" in the registries that use them. */
const GOV_LABELS = new Set([
  'gov',
  'mil',
  'gob',
  'gouv',
  'go',
  'gv',
  'govt',
  'gub',
  '政府', // .hk, .香港
  'ממשל',
  'צהל', // government, Israel Defense Forces (.ישראל)
  'упр', // uprava, administration (.срб)
  'รัฐบาล',
  'ทหาร', // government, military (.ไทย)
]);
/** Reviewed government suffixes whose first label is not one of the above. */
const GOV_SUFFIXES = [
  'gc.ca', // Government of Canada
  'lg.jp', // Japanese local governments
  'police.uk',
  'parliament.nz',
  'nic.in', // National Informatics Centre: Government of India hosts
  'dep.no', // Norwegian ministries
  'kommune.no', // Norwegian municipalities
  'gmina.pl',
  'powiat.pl', // Polish municipalities and counties
  'muni.il',
  'idf.il', // Israeli municipalities, Israel Defense Forces
  'leg.br',
  'jus.br',
  'mp.br',
  'def.br', // Brazil: legislature, judiciary, public prosecutors, public defenders
  'gkp.pk',
  'gog.pk',
  'gok.pk',
  'gop.pk',
  'gos.pk', // Pakistani provincial governments
];
/** Rules with a government first label that are not government. */
const NOT_GOVERNMENT = new Set([
  'go.it', // Gorizia, an Italian province code
]);
const rules = (await import(pathToFileURL(join(pslRoot, 'data', 'rules.js')).href)).default;
const isIcannSuffix = (suffix) => getPublicSuffix(`x.${suffix}`, { allowPrivateDomains: false }) === suffix;

// Candidates: the psl package's rules (a "*.bd" rule stands for its second levels), and every
// government label under every TLD, so that a suffix tldts knows and the psl copy lacks is not missed.
// tldts (the list the tld plugin uses at run time) confirms each one is an ICANN suffix.
const candidates = new Set();
const tlds = new Set();
for (const rule of rules) {
  if (rule.startsWith('!')) continue;
  const a = ascii(rule.startsWith('*.') ? rule.slice(2) : rule);
  if (a === null) continue;
  candidates.add(a);
  tlds.add(a.slice(a.lastIndexOf('.') + 1));
}
for (const tld of tlds)
  for (const label of GOV_LABELS) {
    const a = ascii(`${label}.${tld}`);
    if (a !== null) candidates.add(a);
  }
// Under a TLD whose every second level is a suffix ("*.pg"), any label passes tldts: keep gov and mil there.
/** Every label under `name` is a suffix (a "*.name" rule, such as *.pg or *.sch.uk). */
const isWildcardSuffix = (name) => isIcannSuffix(`no-such-label-zz.${name}`);
const WILDCARD_TLD_LABELS = new Set(['gov', 'mil']);
const suffixes = new Set(['gov', 'mil']);
for (const a of candidates) {
  const dot = a.indexOf('.');
  if (dot < 0 || NOT_GOVERNMENT.has(a) || !(isIcannSuffix(a) || isWildcardSuffix(a))) continue;
  const first = toUnicode(a.slice(0, dot));
  const rest = a.slice(dot + 1);
  if (GOV_LABELS.has(first) && (!isWildcardSuffix(rest) || WILDCARD_TLD_LABELS.has(first))) suffixes.add(a);
}
for (const s of GOV_SUFFIXES) {
  if (!isIcannSuffix(s)) throw new Error(`${s} is not an ICANN public suffix (any more): review GOV_SUFFIXES`);
  suffixes.add(s);
}
const sorted = [...suffixes].sort();
writeFileSync(join(here, 'suffixes.txt'), `${sorted.join('\n')}\n`);
console.log(`suffixes.txt: ${sorted.length} government suffixes`);

// domains.txt is curated by hand: check it is lower-case ASCII, unique, and names registrable domains.
const curated = readFileSync(join(here, 'domains.txt'), 'utf8')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l !== '' && !l.startsWith('#'));
const seen = new Set();
for (const d of curated) {
  if (!HOST.test(d) || !d.includes('.')) throw new Error(`domains.txt: ${d} is not a lower-case ASCII domain`);
  if (seen.has(d)) throw new Error(`domains.txt: ${d} is listed twice`);
  seen.add(d);
  if (isIcannSuffix(d)) throw new Error(`domains.txt: ${d} is a public suffix: move it to GOV_SUFFIXES`);
  const labels = d.split('.');
  for (let i = 1; i < labels.length; i++) {
    const parent = labels.slice(i).join('.');
    if (suffixes.has(parent)) throw new Error(`domains.txt: ${d} is already covered by the suffix ${parent}`);
  }
}
console.log(`domains.txt: ${curated.length} curated domains`);

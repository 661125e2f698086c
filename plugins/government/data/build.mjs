// Builds suffixes.txt, the government suffixes of the Public Suffix List's ICANN section, found by
// probing tldts (the list the tld plugin uses at run time), and checks the hand-curated domains.txt.
// Run from the repository root: node plugins/government/data/build.mjs
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { getPublicSuffix } from 'tldts';
import { toUnicode as idnaToUnicode, toASCII } from 'tr46';

const here = dirname(fileURLToPath(import.meta.url));

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
  'nsn.us', // Native Sovereign Nations: tribal governments (RFC 1480)
];
/** Rules with a government first label that are not government. */
const NOT_GOVERNMENT = new Set([
  'go.it', // Gorizia, an Italian province code
]);
/** The IDN ccTLDs the labels above are used under: probing can try every two-letter name, not every IDN one. */
const IDN_TLDS = ['香港', 'ישראל', 'срб', 'ไทย'];
const isIcannSuffix = (suffix) => getPublicSuffix(`x.${suffix}`, { allowPrivateDomains: false }) === suffix;
/** Every label under `name` is a suffix (a "*.name" rule, such as *.pg or *.sch.uk). */
const isWildcardSuffix = (name) => isIcannSuffix(`no-such-label-zz.${name}`);
const isSuffix = (name) => isIcannSuffix(name) || isWildcardSuffix(name);

// tldts cannot list its rules, so candidates are probed: each government label under every
// two-letter name (za has no rule of its own, only its second levels) and the IDN TLDs above, under
// every two-letter second level that is a suffix (nc.tr), and under each suffix so found (go.gov.br).
const LETTERS = 'abcdefghijklmnopqrstuvwxyz';
const twoLetters = [...LETTERS].flatMap((a) => [...LETTERS].map((b) => a + b));
const tlds = [...twoLetters, ...IDN_TLDS.map((tld) => ascii(tld))];
const secondLevels = tlds.flatMap((tld) => twoLetters.map((label) => `${label}.${tld}`)).filter(isSuffix);
const underEach = (parents) => parents.flatMap((parent) => [...GOV_LABELS].map((label) => ascii(`${label}.${parent}`))).filter((a) => a !== null);
const found = underEach([...tlds, ...secondLevels]).filter(isSuffix);
const candidates = new Set([...found, ...underEach(found.filter((a) => !isWildcardSuffix(a))).filter(isSuffix)]);
// Under a TLD whose every second level is a suffix ("*.pg"), any label passes tldts: keep gov and mil there.
const WILDCARD_TLD_LABELS = new Set(['gov', 'mil']);
const suffixes = new Set(['gov', 'mil']);
for (const a of candidates) {
  if (NOT_GOVERNMENT.has(a)) continue;
  const dot = a.indexOf('.');
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

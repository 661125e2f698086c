// Which disposable-listed domains are one or two edits from a popular mailbox domain, and which of them
// the typo check corrects (those are challenged with the suggestion, not blocked: README.md "Typo domains").
// Run from the repository root after `npm run build`: node plugins/disposable/data/typo-audit.mjs
import { readFileSync } from 'node:fs';
import damerauLevenshtein from 'damerau-levenshtein';
import { readPopularDomains } from '../../../dist/plugins/typo/popular-domains.js';
import { TypoSuggester } from '../../../dist/plugins/typo/suggest.js';

const lines = (file) =>
  readFileSync(new URL(file, import.meta.url), 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));

const disposable = lines('./domains.txt');
const popular = readPopularDomains();
const suggester = new TypoSuggester(popular);

const near = [];
for (const domain of disposable) {
  let best = null;
  for (const target of popular) {
    if (Math.abs(target.length - domain.length) > 2) continue;
    const steps = damerauLevenshtein(domain, target).steps;
    if (steps <= 2 && (best === null || steps < best.steps)) best = { target, steps };
  }
  if (best !== null) near.push({ domain, ...best, suggestion: suggester.suggest(domain) });
}
const corrected = near.filter((n) => n.suggestion !== null);
for (const n of near) console.log(`${n.domain}\t${n.steps}\t${n.target}\t${n.suggestion ?? '-'}`);
console.log(
  `${disposable.length} disposable domains; ${near.filter((n) => n.steps === 1).length} one edit and ${near.filter((n) => n.steps === 2).length} two edits from one of ${popular.length} popular domains; the typo check corrects ${corrected.length} of them.`,
);

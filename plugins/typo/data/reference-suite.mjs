// Runs the suggestion cases of mailcheck's and @zootools/email-spell-checker's test suites
// (../reference-cases.json, see SOURCE.md) through the typo plugin of a built checkout, and counts.
// Usage: node plugins/typo/data/reference-suite.mjs [checkout root, default this one] [--list]
// The checkout must be built (npx tsc -p tsconfig.json): its dist/ is what runs.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { builtTypoCheck } from './built-typo-check.mjs';

const args = process.argv.slice(2);
const list = args.includes('--list');
const root = resolve(args.find((arg) => !arg.startsWith('--')) ?? fileURLToPath(new URL('../../..', import.meta.url)));
const { textFact } = await builtTypoCheck(root, 'reference-suite');

/** The corrected_email the typo plugin gives for one input, or null. */
const suggestionFor = (email) => textFact(email, 'corrected_email');

const OUTCOMES = ['right', 'wrong', 'missed', 'false_alarm', 'right_abstention'];
const cases = JSON.parse(readFileSync(new URL('../reference-cases.json', import.meta.url), 'utf8'));
const totals = Object.fromEntries(OUTCOMES.map((o) => [o, 0]));
console.log(`checkout: ${root}`);
for (const suite of cases.suites) {
  const counts = Object.fromEntries(OUTCOMES.map((o) => [o, 0]));
  for (const { input, expected } of suite.cases) {
    const got = await suggestionFor(input);
    const outcome = expected === null ? (got === null ? 'right_abstention' : 'false_alarm') : got === expected ? 'right' : got === null ? 'missed' : 'wrong';
    counts[outcome] += 1;
    totals[outcome] += 1;
    if (list && outcome !== 'right' && outcome !== 'right_abstention')
      console.log(`  ${outcome.padEnd(12)} ${JSON.stringify(input)} -> ${JSON.stringify(got)} (expected ${JSON.stringify(expected)})`);
  }
  console.log(`${suite.name} (${suite.cases.length} cases): ${OUTCOMES.map((o) => `${o} ${counts[o]}`).join(', ')}`);
}
console.log(`all: ${OUTCOMES.map((o) => `${o} ${totals[o]}`).join(', ')}`);

// Runs the suggestion cases of mailcheck's and @zootools/email-spell-checker's test suites
// (../reference-cases.json, see SOURCE.md) through the typo plugin of a built checkout, and counts.
// Usage: node plugins/typo/data/reference-suite.mjs [checkout root, default this one] [--list]
// The checkout must be built (npx tsc -p tsconfig.json): its dist/ is what runs.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const args = process.argv.slice(2);
const list = args.includes('--list');
const root = resolve(args.find((arg) => !arg.startsWith('--')) ?? fileURLToPath(new URL('../../..', import.meta.url)));
const load = (path) => import(pathToFileURL(resolve(root, 'dist', path)).href);

const [{ registry }, { FactCatalog }, { compilePolicy }, { parsePolicy }, { evaluate }, { noHistory }] = await Promise.all([
  load('plugins/index.js'),
  load('src/engine/catalog.js'),
  load('src/policy/compile.js'),
  load('src/policy/load.js'),
  load('src/policy/evaluate.js'),
  load('src/engine/no-history.js'),
]);

const policyText = JSON.stringify({ version: '1', default_action: 'allow', checks: { typo_detection: { mode: 'soft' } } });
const policy = compilePolicy('reference-suite', parsePolicy('reference-suite.json', policyText), new FactCatalog(registry));

/** The corrected_email the typo plugin gives for one input, or null. */
async function suggestionFor(email) {
  const errors = [];
  const input = { email, ipv4: null, ipv6: null, device: null, softCheck: false, projectId: 'reference-suite' };
  const evaluation = await evaluate(policy, input, { velocity: noHistory, now: Date.now, onPluginError: (_id, error) => errors.push(error) });
  const corrected = await evaluation.fact('corrected_email');
  if (errors.length > 0) throw errors[0];
  return typeof corrected === 'string' ? corrected : null;
}

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

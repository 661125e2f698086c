#!/usr/bin/env node
// Runs the syntax reference suites beside this file (see README.md) through the service's own verdict,
// and prints agree/disagree counts per class and every disagreement:
// - python-email-validator.json: the cases of python-email-validator's tests/test_syntax.py;
// - idna-test-v2.jsonl: every source of Unicode's IdnaTestV2.txt as the domain of `a@…`, judged by
//   python-email-validator 2.3.0.
//
//   node plugins/structure/reference/reference-suite.mjs [--dist DIR] [--suite python-email-validator|idna-test-v2] [--json]
//
// DIR is a built dist/ (default: this checkout's); the policy is policies/default.yaml of the checkout
// that holds DIR, so an older checkout (git worktree add … COMMIT; npx tsc -p tsconfig.json) is judged
// by its own code and its own default policy. Offline: no DNS, no history.
//
// Two verdicts of the service, each compared with the reference (for the first suite: its expectation,
// with quoted local parts and domain literals allowed, as its `allow_*` options do):
// - syntax: `valid_address_format` is true and no check of the address's form fires in the default
//   policy (length limits, empty local part, single-label or all-numeric domain: what
//   python-email-validator also calls a syntax error). The headline figure. For an address both accept,
//   the ASCII domain must match too: the reference's against `punycode_value` (else the `domain` fact).
// - policy (first suite only; the IDNA suite's top-level domains are made up): `valid_address_format` is
//   true and the default policy's action is not `block` (it also blocks TLDs that are not delegated,
//   address literals and a `*` local part: choices, not syntax).
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const option = (name) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const dist = resolve(option('--dist') ?? join(here, '../../../dist'));
const only = option('--suite');
const asJson = args.includes('--json');
const checkout = dirname(dist);
const load = (path) => import(pathToFileURL(join(dist, path)).href);

const { registry } = await load('plugins/index.js');
const { FactCatalog } = await load('src/engine/catalog.js');
const { loadPolicy } = await load('src/policy/load.js');
const { evaluate } = await load('src/policy/evaluate.js');
const { noHistory } = await load('src/engine/no-history.js');

const policy = loadPolicy({ name: 'default', file: join(checkout, 'policies/default.yaml') }, new FactCatalog(registry));
const CLASSES = ['valid_local', 'invalid_local', 'valid_domain', 'invalid_domain', 'idn'];
/** Checks of the default policy that judge the address's form (form-checks.json). */
const FORM_CHECKS = new Set(JSON.parse(readFileSync(join(here, 'form-checks.json'), 'utf8')).checks);

/** The suites: name, header, cases ({input, class, valid, ascii_domain?, reference_error?}), the verdicts compared. */
function pythonEmailValidator() {
  const suite = JSON.parse(readFileSync(join(here, 'python-email-validator.json'), 'utf8'));
  return { name: 'python-email-validator', title: `${suite.suite} @ ${suite.commit.slice(0, 7)}`, cases: suite.cases, levels: ['syntax', 'policy'] };
}

function idnaTestV2() {
  const [header, ...lines] = readFileSync(join(here, 'idna-test-v2.jsonl'), 'utf8').trimEnd().split('\n');
  const cases = lines.map((line) => {
    const [domain, valid, answer, uts46] = JSON.parse(line);
    const idn = /[^ -~]/.test(domain) || /(^|\.)xn--/i.test(domain);
    const kind = idn ? 'idn' : valid ? 'valid_domain' : 'invalid_domain';
    return { input: `a@${domain}`, class: kind, valid, ...(valid ? { ascii_domain: answer } : { reference_error: answer }), uts46 };
  });
  return { name: 'idna-test-v2', title: JSON.parse(header).suite, cases, levels: ['syntax'] };
}

async function verdict(email) {
  const input = { email, ipv4: null, ipv6: null, device: null, softCheck: false, projectId: 'reference-suite' };
  const errors = [];
  const evaluation = await evaluate(policy, input, { velocity: noHistory, now: Date.now, onPluginError: (_id, error) => errors.push(error) });
  if (errors.length > 0) throw errors[0];
  const valid = await evaluation.fact('valid_address_format');
  const { action, errors: codes, fired } = evaluation.decision;
  const formFired = fired.filter((v) => v.source === 'check' && FORM_CHECKS.has(v.name)).map((v) => v.name);
  const literal = await evaluation.fact('domain_literal');
  return {
    valid,
    action,
    codes,
    formFired,
    ascii: literal ? null : ((await evaluation.fact('punycode_value')) ?? (await evaluation.fact('domain'))),
    syntax: valid === true && formFired.length === 0,
    policy: valid === true && action !== 'block',
  };
}

/** Why the service's verdict `level` disagrees with the reference on case `c`, or null. */
function disagreement(c, ours, level) {
  if (ours[level] !== c.valid) return c.valid ? 'reference accepts, service refuses' : 'reference refuses, service accepts';
  if (c.valid && c.ascii_domain && ours.ascii !== null && ours.ascii !== c.ascii_domain) return `ASCII domain ${ours.ascii}, reference ${c.ascii_domain}`;
  return null;
}

async function run(suite) {
  const tally = Object.fromEntries(suite.levels.map((l) => [l, Object.fromEntries([...CLASSES, 'total'].map((c) => [c, { cases: 0, agree: 0 }]))]));
  const disagreements = Object.fromEntries(suite.levels.map((l) => [l, []]));
  for (const c of suite.cases) {
    const ours = await verdict(c.input);
    for (const level of suite.levels) {
      const why = disagreement(c, ours, level);
      for (const row of [tally[level][c.class], tally[level].total]) {
        row.cases++;
        if (!why) row.agree++;
      }
      if (why) disagreements[level].push({ class: c.class, input: c.input, why, reference: c.valid ? 'valid' : c.reference_error, ours });
    }
  }
  return { suite: suite.name, title: suite.title, cases: suite.cases.length, tally, disagreements };
}

function print(result) {
  const { tally, disagreements } = result;
  const levels = Object.keys(tally);
  console.log(`${result.title}: ${result.cases} cases, against ${dist}`);
  console.log(`${'class'.padEnd(16)}${'cases'.padStart(6)}${levels.map((l) => `${l} agree`.padStart(16)).join('')}`);
  for (const name of [...CLASSES, 'total']) {
    const n = tally[levels[0]][name].cases;
    const cells = levels.map((l) => `${tally[l][name].agree} (${n - tally[l][name].agree} off)`.padStart(16));
    console.log(`${name.padEnd(16)}${String(n).padStart(6)}${cells.join('')}`);
  }
  for (const level of levels) {
    console.log(`\n${level} disagreements: ${disagreements[level].length}`);
    for (const d of disagreements[level]) {
      const o = d.ours;
      console.log(`[${d.class}] ${JSON.stringify(d.input)}: ${d.why}`);
      if (level === 'syntax') console.log(`  reference: ${d.reference}`);
      console.log(
        `  service: valid_address_format=${o.valid} form checks=${o.formFired.join(',') || '-'} action=${o.action} errors=${o.codes.join(',') || '-'} ascii=${o.ascii}`,
      );
    }
  }
  console.log('');
}

const suites = [pythonEmailValidator, idnaTestV2].map((make) => make()).filter((s) => !only || s.name === only);
if (suites.length === 0) throw new Error(`no suite named ${only}`);
const results = [];
for (const suite of suites) results.push(await run(suite));
if (asJson) console.log(JSON.stringify({ dist, results }, null, 2));
else for (const result of results) print(result);

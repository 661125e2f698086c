#!/usr/bin/env node
// Runs the syntax reference suite (python-email-validator.json beside this file: the cases of
// python-email-validator's tests/test_syntax.py, see README.md) through the service's own verdict, and
// prints agree/disagree counts per class and every disagreement.
//
//   node plugins/structure/reference/reference-suite.mjs [--dist DIR] [--json]
//
// DIR is a built dist/ (default: this checkout's); the policy is policies/default.yaml of the checkout
// that holds DIR, so an older checkout (git worktree add … COMMIT; npx tsc -p tsconfig.json) is judged
// by its own code and its own default policy. Offline: no DNS, no history.
//
// Two verdicts of the service, each compared with the reference (the suite's expectation, with quoted
// local parts and domain literals allowed, as its `allow_*` options do):
// - syntax: `valid_address_format` is true and no check of the address's form fires in the default
//   policy (length limits, empty local part, single-label or all-numeric domain: what
//   python-email-validator also calls a syntax error). The headline figure.
// - policy: `valid_address_format` is true and the default policy's action is not `block` (it also blocks
//   TLDs that are not delegated, address literals and a `*` local part: choices, not syntax).
// For a valid internationalised domain the ASCII form must match too: the reference's ascii_domain
// against the `punycode_value` fact.
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const distAt = args.indexOf('--dist');
const dist = resolve(distAt >= 0 ? args[distAt + 1] : join(here, '../../../dist'));
const asJson = args.includes('--json');
const checkout = dirname(dist);
const load = (path) => import(pathToFileURL(join(dist, path)).href);

const { registry } = await load('plugins/index.js');
const { FactCatalog } = await load('src/engine/catalog.js');
const { readPolicyFile } = await load('src/policy/load.js');
const { compilePolicy } = await load('src/policy/compile.js');
const { evaluate } = await load('src/policy/evaluate.js');
const { noHistory } = await load('src/engine/no-history.js');

const policy = compilePolicy('default', readPolicyFile(join(checkout, 'policies/default.yaml')), new FactCatalog(registry));
const suite = JSON.parse(readFileSync(join(here, 'python-email-validator.json'), 'utf8'));
const CLASSES = ['valid_local', 'invalid_local', 'valid_domain', 'invalid_domain', 'idn'];
/** Checks of the default policy that judge the address's form, as python-email-validator's syntax errors do. */
const FORM_CHECKS = new Set([
  'structure',
  'local_empty',
  'local_part_max_length',
  'domain_max_length',
  'total_address_length',
  'label_max_length',
  'domain_single_label',
  'domain_numeric_only',
]);

async function verdict(email) {
  const input = { email, ipv4: null, ipv6: null, device: null, softCheck: false, projectId: 'reference-suite' };
  const errors = [];
  const evaluation = await evaluate(policy, input, { velocity: noHistory, now: Date.now, onPluginError: (_id, error) => errors.push(error) });
  if (errors.length > 0) throw errors[0];
  const valid = await evaluation.fact('valid_address_format');
  const { action, errors: codes, fired } = evaluation.decision;
  const formFired = fired.filter((v) => v.source === 'check' && FORM_CHECKS.has(v.name)).map((v) => v.name);
  return {
    valid,
    action,
    codes,
    formFired,
    ascii: await evaluation.fact('punycode_value'),
    syntax: valid === true && formFired.length === 0,
    policy: valid === true && action !== 'block',
  };
}

/** Why the service's verdict `level` disagrees with the reference on case `c`, or null. */
function disagreement(c, ours, level) {
  if (ours[level] !== c.valid) return c.valid ? 'reference accepts, service refuses' : 'reference refuses, service accepts';
  if (c.valid && c.class === 'idn' && c.ascii_domain && ours.ascii !== c.ascii_domain) return `ASCII domain ${ours.ascii}, reference ${c.ascii_domain}`;
  return null;
}

const LEVELS = ['syntax', 'policy'];
const tally = Object.fromEntries(LEVELS.map((l) => [l, Object.fromEntries([...CLASSES, 'total'].map((c) => [c, { cases: 0, agree: 0 }]))]));
const disagreements = { syntax: [], policy: [] };
for (const c of suite.cases) {
  const ours = await verdict(c.input);
  for (const level of LEVELS) {
    const why = disagreement(c, ours, level);
    for (const row of [tally[level][c.class], tally[level].total]) {
      row.cases++;
      if (!why) row.agree++;
    }
    if (why) disagreements[level].push({ class: c.class, input: c.input, why, reference: c.valid ? 'valid' : c.reference_error, ours });
  }
}

if (asJson) {
  console.log(JSON.stringify({ dist, suite: suite.suite, commit: suite.commit, tally, disagreements }, null, 2));
} else {
  console.log(`${suite.suite} @ ${suite.commit.slice(0, 7)}, ${suite.cases.length} cases, against ${dist}`);
  console.log(`${'class'.padEnd(16)}${'cases'.padStart(6)}${'syntax agree'.padStart(14)}${'policy agree'.padStart(14)}`);
  for (const name of [...CLASSES, 'total']) {
    const s = tally.syntax[name];
    const p = tally.policy[name];
    console.log(
      `${name.padEnd(16)}${String(s.cases).padStart(6)}${`${s.agree} (${s.cases - s.agree} off)`.padStart(14)}${`${p.agree} (${p.cases - p.agree} off)`.padStart(14)}`,
    );
  }
  for (const level of LEVELS) {
    console.log(`\n${level} disagreements: ${disagreements[level].length}`);
    for (const d of disagreements[level]) {
      const o = d.ours;
      console.log(`[${d.class}] ${JSON.stringify(d.input)}: ${d.why}`);
      if (level === 'syntax') console.log(`  reference: ${d.reference}`);
      console.log(
        `  service: valid_address_format=${o.valid} form checks=${o.formFired.join(',') || '-'} action=${o.action} errors=${o.codes.join(',') || '-'} punycode_value=${o.ascii}`,
      );
    }
  }
}

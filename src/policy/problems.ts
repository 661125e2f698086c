// Everything wrong with a policy, in one pass: what the schema refused (load.ts) and what only the
// registry can tell — unknown checks and facts (with the closest known name), options that do not fit a
// check, operators that do not fit a fact, rule names used twice, unknown verdict fields, and tests that
// expect what the policy cannot answer. The parts the schema refused are checked as far as they are well
// formed, so a schema problem never hides the others; a problem at a place the schema already named is
// left out.

import { echoInput } from '../echoed-input.js';
import type { FactCatalog } from '../engine/catalog.js';
import type { CheckOptions, CheckSpec } from '../engine/plugin.js';
import { describeSchemaErrors, validatorFor } from '../schemas.js';
import { verdictProblems } from './compile-verdict.js';
import { conditionProblems } from './condition-types.js';
import { didYouMean } from './did-you-mean.js';
import { type PolicyProblem, sortProblems } from './errors.js';
import type { LoadedPolicy } from './load.js';
import { ruleId } from './rule-id.js';
import { testExpectationProblems } from './test-expectations.js';

type Path = (string | number)[];
type Report = (path: Path, message: string) => void;

/** Schema and semantic problems of a loaded policy, sorted; empty when it compiles. */
export function policyProblems(loaded: LoadedPolicy, catalog: FactCatalog): PolicyProblem[] {
  const found: PolicyProblem[] = [];
  const report: Report = (path, message) => found.push(loaded.problem(path, message));
  const doc: unknown = loaded.document;
  if (isRecord(doc)) {
    checkProblems(doc.checks, catalog, report);
    freeRuleProblems(doc.rules, catalog, report);
    if (isRecord(doc.intelligence)) {
      for (const p of verdictProblems(doc.intelligence, catalog)) report(['intelligence', ...p.path], p.message);
    }
    testExpectationProblems(doc, catalog, report);
  }
  const schema = loaded.problems;
  const named = (p: PolicyProblem) => schema.some((s) => s.path !== '' && (p.path === s.path || p.path.startsWith(`${s.path}/`)));
  return sortProblems([...schema, ...found.filter((p) => !named(p))]);
}

/** Options of an enabled check: the policy's over the check's defaults (valid once policyProblems is empty). */
export function checkOptions(spec: CheckSpec, given: unknown): CheckOptions {
  return { ...spec.defaults, ...(isRecord(given) ? given : {}) };
}

function checkProblems(checks: unknown, catalog: FactCatalog, report: Report): void {
  if (!isRecord(checks)) return;
  for (const [name, config] of Object.entries(checks)) {
    const here = ['checks', name];
    const plugin = catalog.checkOwner.get(name);
    if (!plugin) {
      const known = [...catalog.checkOwner.keys()];
      const hint = didYouMean(name, known) || `; known checks: ${known.sort().join(', ')}`;
      report(here, `unknown check "${echoInput(name)}"${hint}`);
      continue;
    }
    if (!isRecord(config)) continue;
    const spec = plugin.checks[name] as CheckSpec;
    if (!optionsFit(name, spec, config.options, here, report) || config.enabled === false) continue;
    const options = checkOptions(spec, config.options);
    const condition = typeof spec.when === 'function' ? spec.when(options) : spec.when;
    for (const problem of conditionProblems(condition, catalog)) report(here, `check ${name} of plugin ${plugin.id} is broken: ${problem.message}`);
  }
}

/** Whether a check's options fit its schema; reports each misfit. */
function optionsFit(name: string, spec: CheckSpec, given: unknown, here: Path, report: Report): boolean {
  if (given !== undefined && !isRecord(given)) return false; // the schema says it must be an object
  if (!spec.options) {
    if (given && Object.keys(given).length > 0) {
      report([...here, 'options'], `check ${name} takes no options`);
      return false;
    }
    return true;
  }
  const validate = validatorFor(spec.options);
  if (validate(checkOptions(spec, given))) return true;
  for (const p of describeSchemaErrors(validate.errors ?? [])) report([...here, 'options', ...p.path], p.message);
  return false;
}

function freeRuleProblems(rules: unknown, catalog: FactCatalog, report: Report): void {
  if (!Array.isArray(rules)) return;
  const names = rules.map((rule) => (isRecord(rule) && typeof rule.name === 'string' ? rule.name : null));
  rules.forEach((rule, i) => {
    if (!isRecord(rule)) return;
    const here = ['rules', i];
    const name = names[i];
    if (name) {
      const twin = names.findIndex((other) => other !== null && ruleId(other) === ruleId(name));
      if (twin !== i) {
        const first = names[twin] as string;
        report(
          [...here, 'name'],
          first === name ? `rule name "${name}" is used twice` : `rule names "${first}" and "${name}" both answer as ${ruleId(name)}: rename one`,
        );
      }
    }
    for (const problem of conditionProblems(rule.conditions, catalog)) report([...here, 'conditions', ...problem.path], problem.message);
  });
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// Everything wrong with a policy, in one pass: what the schema refused (load.ts) and what only the
// registry can tell — unknown checks and facts (with the closest known name), options that do not fit a
// check, operators that do not fit a fact, rule names used twice, unknown verdict fields, and tests that
// expect what the policy cannot answer. The parts the schema refused are checked as far as they are well
// formed, so a schema problem never hides the others; a problem at a place the schema already named is
// left out. The search stops once a text's problems fill the report (POLICY_LIMITS.problems).

import { echoInput } from '../echoed-input.js';
import type { FactCatalog } from '../engine/catalog.js';
import { domainEntry, networkEntry } from '../engine/operators.js';
import type { CheckOptions, CheckSpec } from '../engine/plugin.js';
import { describeSchemaErrors, pointer, validatorFor } from '../schemas.js';
import { ACTIONS, type Action } from '../vocabulary.js';
import { verdictProblems } from './compile-verdict.js';
import { conditionProblems } from './condition-types.js';
import { severity } from './decide.js';
import { didYouMean } from './did-you-mean.js';
import { type PolicyProblem, sortProblems } from './errors.js';
import { POLICY_LIMITS } from './limits.js';
import type { LoadedPolicy } from './load.js';
import { ruleId } from './rule-id.js';
import { type Report, testExpectationProblems } from './test-expectations.js';

type Path = (string | number)[];

/** Schema and semantic problems of a loaded policy, sorted, at most POLICY_LIMITS.problems; empty when it compiles. */
export function policyProblems(loaded: LoadedPolicy, catalog: FactCatalog): PolicyProblem[] {
  const schema = loaded.problems;
  const namedBySchema = new Set(schema.filter((s) => s.path !== '').map((s) => s.path));
  const found: PolicyProblem[] = [];
  const report: Report = (path, message) => {
    if (!isUnder(pointer(path), namedBySchema)) found.push(loaded.problem(path, message()));
  };
  const full = () => schema.length + found.length >= POLICY_LIMITS.problems;
  const doc: unknown = loaded.document;
  if (isRecord(doc)) {
    checkProblems(doc.checks, catalog, report, full);
    freeRuleProblems(doc.rules, catalog, report, full);
    exemptionProblems(doc, catalog, report, full);
    if (isRecord(doc.intelligence) && !full()) {
      for (const p of verdictProblems(doc.intelligence, catalog)) report(['intelligence', ...p.path], () => p.message);
    }
    testExpectationProblems(doc, catalog, report, full);
  }
  return sortProblems([...schema, ...found]).slice(0, POLICY_LIMITS.problems);
}

/** Whether a JSON pointer is one of `places` or inside one. */
function isUnder(pointer: string, places: ReadonlySet<string>): boolean {
  for (let at = pointer.length; at > 0; at = pointer.lastIndexOf('/', at - 1)) {
    if (places.has(pointer.slice(0, at))) return true;
  }
  return false;
}

/** Options of an enabled check: the policy's over the check's defaults (valid once policyProblems is empty). */
export function checkOptions(spec: CheckSpec, given: unknown): CheckOptions {
  return { ...spec.defaults, ...(isRecord(given) ? given : {}) };
}

function checkProblems(checks: unknown, catalog: FactCatalog, report: Report, full: () => boolean): void {
  if (!isRecord(checks)) return;
  for (const [name, config] of Object.entries(checks)) {
    if (full()) return;
    const here = ['checks', name];
    const plugin = catalog.checkOwner.get(name);
    if (!plugin) {
      report(here, () => {
        const known = [...catalog.checkOwner.keys()];
        return `unknown check "${echoInput(name)}"${didYouMean(name, known) || `; known checks: ${known.sort().join(', ')}`}`;
      });
      continue;
    }
    if (!isRecord(config)) continue;
    const spec = plugin.checks[name] as CheckSpec;
    if (!optionsFit(name, spec, config.options, here, report) || config.enabled === false) continue;
    const mode = config.mode ?? 'hard';
    const action = isAction(config.action) ? config.action : mode === 'hard' ? 'block' : 'allow';
    if (spec.code === undefined && decidesMoreThanAllow(action)) {
      report(
        here,
        () =>
          `check ${name} can decide ${action} but carries no code, so an answer would not say why: give its plugin (${plugin.id}) a code for it, or set action: allow`,
      );
    }
    const options = checkOptions(spec, config.options);
    const condition = typeof spec.when === 'function' ? spec.when(options) : spec.when;
    for (const problem of conditionProblems(condition, catalog)) report(here, () => `check ${name} of plugin ${plugin.id} is broken: ${problem.message()}`);
  }
}

/** Whether a check's options fit its schema; reports each misfit. */
function optionsFit(name: string, spec: CheckSpec, given: unknown, here: Path, report: Report): boolean {
  if (given !== undefined && !isRecord(given)) return false; // the schema says it must be an object
  if (!spec.options) {
    if (given && Object.keys(given).length > 0) {
      report([...here, 'options'], () => `check ${name} takes no options`);
      return false;
    }
    return true;
  }
  const validate = validatorFor(spec.options);
  if (validate(checkOptions(spec, given))) return true;
  for (const p of describeSchemaErrors(validate.errors ?? [])) report([...here, 'options', ...p.path], () => p.message);
  return false;
}

function freeRuleProblems(rules: unknown, catalog: FactCatalog, report: Report, full: () => boolean): void {
  if (!Array.isArray(rules)) return;
  /** rule_<name> → the first rule name answering as it. */
  const firstById = new Map<string, string>();
  for (const [i, rule] of rules.entries()) {
    if (full()) return;
    if (!isRecord(rule)) continue;
    const here = ['rules', i];
    if (typeof rule.name === 'string') {
      const name = rule.name;
      const id = ruleId(name);
      const first = firstById.get(id);
      if (first === undefined) firstById.set(id, name);
      else
        report([...here, 'name'], () =>
          first === name ? `rule name "${name}" is used twice` : `rule names "${first}" and "${name}" both answer as ${id}: rename one`,
        );
    }
    for (const problem of conditionProblems(rule.conditions, catalog)) report([...here, 'conditions', ...problem.path], problem.message);
    if (isAction(rule.action) && decidesMoreThanAllow(rule.action) && rule.error === undefined && rule.warning === undefined && typeof rule.name === 'string') {
      const name = rule.name;
      report([...here, 'action'], () => {
        const code = ruleId(name);
        return `rule "${name}" can decide ${rule.action} without a code, so an answer would not say why: add \`${severity(rule.action as Action) >= severity('soft_block') ? 'error' : 'warning'}: ${code}\` (or a code of your own) to the rule`;
      });
    }
  }
}

/**
 * Exemptions: names used once, `from` naming checks of the registry or free rules of this policy, lists whose
 * entries are domains and networks, conditions that fit their facts. A check named but not enabled is a warning
 * (warnings.ts), not a problem: the exemption then sets nothing aside.
 */
function exemptionProblems(doc: Record<string, unknown>, catalog: FactCatalog, report: Report, full: () => boolean): void {
  const exemptions = doc.exemptions;
  if (!Array.isArray(exemptions)) return;
  const ruleNames = Array.isArray(doc.rules) ? doc.rules.flatMap((r) => (isRecord(r) && typeof r.name === 'string' ? [r.name] : [])) : [];
  const enabled = isRecord(doc.checks) ? Object.entries(doc.checks).flatMap(([name, c]) => (isRecord(c) && c.enabled === false ? [] : [name])) : [];
  const seen = new Set<string>();
  for (const [i, exemption] of exemptions.entries()) {
    if (full()) return;
    if (!isRecord(exemption)) continue;
    const here = ['exemptions', i];
    if (typeof exemption.name === 'string') {
      if (seen.has(exemption.name)) report([...here, 'name'], () => `exemption name "${exemption.name}" is used twice`);
      seen.add(exemption.name);
    }
    if (Array.isArray(exemption.from)) {
      for (const [j, name] of exemption.from.entries()) {
        if (typeof name !== 'string' || catalog.checkOwner.has(name) || ruleNames.includes(name)) continue;
        report([...here, 'from', j], () => {
          // What this policy enables first: the closest check of the registry is only a second guess.
          const hint = didYouMean(name, [...enabled, ...ruleNames]) || didYouMean(name, catalog.checkOwner.keys());
          return `"${echoInput(name)}" is neither a check nor a free rule of this policy${hint || ' (`email-trust facts` lists the checks)'}`;
        });
      }
    }
    const when = exemption.when;
    if (!isRecord(when)) continue;
    listEntryProblems(when.domains, [...here, 'when', 'domains'], domainEntry, 'a domain such as partner.example', report);
    listEntryProblems(when.ips, [...here, 'when', 'ips'], networkEntry, 'an IP address or a network such as 203.0.113.0/24', report);
    if (Array.isArray(when.addresses)) {
      for (const [j, address] of when.addresses.entries()) {
        if (typeof address === 'string' && !/^[^@\s]+@[^@\s]+$/.test(address))
          report([...here, 'when', 'addresses', j], () => `"${echoInput(address)}" is not an address such as jane@partner.example`);
      }
    }
    for (const problem of conditionProblems(when.conditions, catalog)) report([...here, 'when', 'conditions', ...problem.path], problem.message);
  }
}

function listEntryProblems(list: unknown, here: Path, entry: (text: string) => unknown, what: string, report: Report): void {
  if (!Array.isArray(list)) return;
  for (const [j, text] of list.entries()) {
    if (typeof text !== 'string' || entry(text) !== null) continue;
    // A wildcard is how lists elsewhere say "and its subdomains", which a listed domain here always means.
    const wildcard = /^\*\.(.+)$/.exec(text.trim());
    report([...here, j], () =>
      wildcard
        ? `"${echoInput(text)}": write ${echoInput(wildcard[1] as string)}, which covers its subdomains (no wildcards)`
        : `"${echoInput(text)}" is not ${what}`,
    );
  }
}

/** Whether an action changes what the caller does: anything but none and allow needs a code that says why. */
function decidesMoreThanAllow(action: Action): boolean {
  return severity(action) > severity('allow');
}

function isAction(value: unknown): value is Action {
  return typeof value === 'string' && (ACTIONS as readonly string[]).includes(value);
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// What a policy test may expect beyond the action and codes: the classification flags, corrected_email,
// risk_level and risk_score of verify's answer, and which checks and rules fired. Each named thing must be
// one this policy can answer, or the test could never pass (or never fail): checked when the policy compiles.

import { echoInput } from '../echoed-input.js';
import { exposedAs, type FactCatalog } from '../engine/catalog.js';
import { didYouMean } from './did-you-mean.js';

/** Adds a problem; the message is written only when the problem is reported (a place the schema named is not). */
export type Report = (path: (string | number)[], message: () => string) => void;

/** Top-level answer fields a test may expect, besides the flags: each a fact of the same name. */
export const EXPECTED_FIELDS = ['corrected_email', 'risk_level', 'risk_score'] as const;

/** Expected keys that are classification flags (`is_…`, `has_…`), as the schema's patternProperties take them. */
export function isFlagKey(key: string): boolean {
  return /^(is|has)_/.test(key);
}

/** Problems of the tests' expectations, until `full` says the report has no room for more. */
export function testExpectationProblems(doc: Record<string, unknown>, catalog: FactCatalog, report: Report, full: () => boolean): void {
  if (!Array.isArray(doc.tests)) return;
  const enabled = enabledChecks(doc, catalog);
  const enabledPlugins = new Set([...enabled.keys()].map((name) => catalog.checkOwner.get(name)?.id));
  const firedNames = [
    ...enabled.keys(),
    ...[...enabled].filter(([, onUnknown]) => onUnknown !== 'ignore').map(([name]) => `on_unknown:${name}`),
    ...(Array.isArray(doc.rules) ? doc.rules.flatMap((r) => (isRecord(r) && typeof r.name === 'string' ? [r.name] : [])) : []),
  ];
  const fired = new Set(firedNames);
  const exemptionNames = Array.isArray(doc.exemptions) ? doc.exemptions.flatMap((e) => (isRecord(e) && typeof e.name === 'string' ? [e.name] : [])) : [];
  const flags = [...catalog.owner].flatMap(([fact, plugin]) => {
    const spec = plugin.facts[fact];
    return spec && exposedAs(spec, 'flag') ? [fact] : [];
  });
  const isFlag = new Set(flags);
  const listNames = [...catalog.listOwner.keys()];
  for (const [i, test] of doc.tests.entries()) {
    if (isRecord(test) && isRecord(test.lists)) {
      for (const list of Object.keys(test.lists)) {
        if (!catalog.listOwner.has(list))
          report(
            ['tests', i, 'lists', list],
            () => `unknown project list "${echoInput(list)}"${didYouMean(list, listNames) || `; lists: ${listNames.join(', ')}`}`,
          );
      }
    }
    if (!isRecord(test) || !isRecord(test.expected)) continue;
    const here = ['tests', i, 'expected'];
    const expected = test.expected;
    if (Array.isArray(expected.fired)) {
      for (const [j, name] of expected.fired.entries()) {
        if (full()) return;
        if (typeof name !== 'string' || fired.has(name)) continue;
        report([...here, 'fired', j], () => {
          const hint = didYouMean(name, firedNames) || ` (it enables ${firedNames.join(', ') || 'nothing'})`;
          return `"${echoInput(name)}" is not an enabled check, a free rule or an on_unknown of this policy${hint}`;
        });
      }
    }
    if (Array.isArray(expected.exemptions)) {
      for (const [j, name] of expected.exemptions.entries()) {
        if (full()) return;
        if (typeof name !== 'string' || exemptionNames.includes(name)) continue;
        report([...here, 'exemptions', j], () => {
          const hint = didYouMean(name, exemptionNames) || ` (its exemptions: ${exemptionNames.join(', ') || 'none'})`;
          return `"${echoInput(name)}" is not an exemption of this policy${hint}`;
        });
      }
    }
    for (const key of Object.keys(expected)) {
      if (full()) return;
      const isField = (EXPECTED_FIELDS as readonly string[]).includes(key);
      if (!isField && !isFlagKey(key)) continue;
      if (!isField && !isFlag.has(key)) {
        report([...here, key], () => `unknown flag "${echoInput(key)}"${didYouMean(key, flags) || `; flags: ${flags.join(', ')}`}`);
        continue;
      }
      const plugin = catalog.owner.get(key);
      if (plugin && !enabledPlugins.has(plugin.id)) {
        const checks = Object.keys(plugin.checks).join(', ');
        report([...here, key], () => `the policy enables no check of plugin ${plugin.id} (${checks}), so its answers never carry ${key}`);
      }
    }
  }
}

/** Enabled checks known to the registry → their on_unknown. */
function enabledChecks(doc: Record<string, unknown>, catalog: FactCatalog): Map<string, unknown> {
  const enabled = new Map<string, unknown>();
  if (!isRecord(doc.checks)) return enabled;
  for (const [name, config] of Object.entries(doc.checks)) {
    if (!catalog.checkOwner.has(name) || !isRecord(config) || config.enabled === false) continue;
    enabled.set(name, config.on_unknown ?? 'ignore');
  }
  return enabled;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

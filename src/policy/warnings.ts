// What a policy that compiles may still not mean: the compiler's warnings, each placed at its line and column
// as problems are. `policy check` prints them and exits 0 (with --strict they are errors); a service loads the
// policy as written. Found only once the policy has no problems, so every part is well formed here.
import type { FactCatalog } from '../engine/catalog.js';
import type { Condition } from '../engine/plugin.js';
import type { PolicyProblem } from './errors.js';
import type { LoadedPolicy } from './load.js';
import type { PolicyDocument } from './types.js';

type Path = (string | number)[];

export function policyWarnings(loaded: LoadedPolicy, catalog: FactCatalog): PolicyProblem[] {
  const doc: PolicyDocument = loaded.document;
  const warnings: PolicyProblem[] = [];
  const warn = (path: Path, message: string) => warnings.push(loaded.problem(path, message));
  const checks = doc.checks ?? {};
  const enabled = new Set(Object.entries(checks).flatMap(([name, config]) => (config.enabled === false ? [] : [name])));

  for (const [name, config] of Object.entries(checks)) {
    if (config.enabled === false && config.options && Object.keys(config.options).length > 0) {
      warn(['checks', name, 'options'], `check ${name} is disabled (enabled: false), so these options are not used: remove them, or enable the check`);
    }
  }

  const readers: { path: Path; condition: Condition }[] = [
    ...(doc.rules ?? []).map((rule, i) => ({ path: ['rules', i, 'conditions'], condition: rule.conditions })),
    ...(doc.exemptions ?? []).flatMap((e, i) => (e.when.conditions ? [{ path: ['exemptions', i, 'when', 'conditions'], condition: e.when.conditions }] : [])),
  ];
  for (const { path, condition } of readers) {
    for (const [at, fact] of factsWithPaths(condition, path)) {
      const required = catalog.owner.get(fact)?.facts[fact]?.requiresCheck;
      if (required && !enabled.has(required)) {
        warn(
          at,
          `fact ${fact} is always null unless check ${required} is enabled (its options hold what the fact is computed from), so this never holds: enable ${required} (action: none keeps it from deciding)`,
        );
      }
    }
  }

  const ruleNames = new Set((doc.rules ?? []).map((rule) => rule.name));
  for (const [i, exemption] of (doc.exemptions ?? []).entries()) {
    if (exemption.from === 'all') continue;
    for (const [j, name] of exemption.from.entries()) {
      if (!ruleNames.has(name) && !enabled.has(name)) {
        warn(['exemptions', i, 'from', j], `check ${name} is not enabled in this policy, so exemption ${exemption.name} sets nothing aside for it`);
      }
    }
  }
  return warnings;
}

/** Each fact test of a condition with the path of its `fact`. */
function* factsWithPaths(condition: Condition, path: Path): Generator<[Path, string]> {
  if ('all' in condition) for (const [i, c] of condition.all.entries()) yield* factsWithPaths(c, [...path, 'all', i]);
  else if ('any' in condition) for (const [i, c] of condition.any.entries()) yield* factsWithPaths(c, [...path, 'any', i]);
  else if ('not' in condition) yield* factsWithPaths(condition.not, [...path, 'not']);
  else yield [[...path, 'fact'], condition.fact];
}

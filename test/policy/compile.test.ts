import { describe, expect, it } from 'vitest';
import { registry } from '../../plugins/index.js';
import { FactCatalog } from '../../src/engine/catalog.js';
import { PolicyError } from '../../src/policy/errors.js';
import { loadPolicy } from '../../src/policy/load.js';
import { evaluateFor } from '../support/plugin-tester.js';

const catalog = new FactCatalog(registry);
const _noHistory = { byIp: async ({ since }: { since: number[] }) => ({ emails: [], distinctEmails: 0, total: 0, since: since.map(() => 0) }) };

function compile(yaml: string) {
  return loadPolicy({ name: 't', file: 't.yaml', text: yaml }, catalog);
}

function problemsOf(yaml: string) {
  try {
    compile(yaml);
  } catch (error) {
    if (error instanceof PolicyError) return error.problems;
    throw error;
  }
  throw new Error('expected the policy to be refused');
}

async function decideFor(yaml: string, email: string) {
  const policy = compile(yaml);
  const evaluation = await evaluateFor(policy, { email });
  return { policy, evaluation, decision: evaluation.decision };
}

describe('compiling a policy', () => {
  it('compiles one condition per enabled check and nothing for disabled ones', () => {
    const policy = compile('version: "1"\nchecks:\n  local_plus: { mode: hard }\n  local_dot: { enabled: false }\n');
    expect(policy.ruleCount).toBe(1);
    expect(policy.runner.ruleCount).toBe(1);
    expect(policy.checks.map((c) => c.name)).toEqual(['local_plus']);
    expect(policy.enabledPlugins.map((p) => p.id)).toEqual(['local-part']);
  });

  it('evaluates every enabled check in one engine rule, each still deciding on its own', async () => {
    const yaml =
      'version: "1"\nchecks:\n  local_plus: { mode: hard }\n  local_hyphen: { mode: soft, action: challenge }\n  local_numeric: { mode: hard, action: quarantine }\n  tld: {}\n';
    expect(compile(yaml).ruleCount).toBe(4);
    expect(compile(yaml).runner.ruleCount).toBe(1);
    expect((await decideFor(yaml, '12-34@example.com')).decision).toMatchObject({ action: 'challenge', errors: [], warnings: ['local_contains_hyphen'] });
    expect((await decideFor(yaml, '1234@example.com')).decision).toMatchObject({ action: 'quarantine', errors: ['local_is_numeric'], warnings: [] });
    expect((await decideFor(yaml, 'a+b-c@example.notatld')).decision).toMatchObject({
      action: 'block',
      errors: ['local_contains_plus_symbol', 'invalid_tld'],
      warnings: ['local_contains_hyphen'],
    });
  });

  it('adds a rule for on_unknown other than ignore', () => {
    expect(compile('version: "1"\nchecks:\n  tld: { on_unknown: block }\n').ruleCount).toBe(2);
  });

  it('refuses an unknown check with its position', () => {
    const [p] = problemsOf('version: "1"\nchecks:\n  local_pluss: { mode: hard }\n');
    expect(p).toMatchObject({ line: 3, path: '/checks/local_pluss' });
    expect(p!.message).toBe('unknown check "local_pluss"; did you mean "local_plus"?');
    const [far] = problemsOf('version: "1"\nchecks:\n  zzz: { mode: hard }\n');
    expect(far!.message).toMatch(/^unknown check "zzz"; known checks: .*local_plus/);
  });

  it('validates check options against the check schema', () => {
    const [p] = problemsOf('version: "1"\nchecks:\n  local_part_max_length: { options: { max: "64" } }\n');
    expect(p).toMatchObject({ path: '/checks/local_part_max_length/options/max', message: 'must be of type integer', line: 3 });
  });

  it('refuses options on a check that takes none', () => {
    const [p] = problemsOf('version: "1"\nchecks:\n  local_plus: { options: { x: 1 } }\n');
    expect(p!.message).toBe('check local_plus takes no options');
  });

  it('refuses unknown facts in free rules', () => {
    const [p] = problemsOf(
      'version: "1"\nrules:\n  - name: r\n    action: block\n    error: e\n    conditions: { all: [ { fact: domain_agee, operator: equal, value: 1 } ] }\n',
    );
    expect(p).toMatchObject({ path: '/rules/0/conditions/all/0/fact', message: 'unknown fact "domain_agee" (`email-trust facts` lists every fact)', line: 6 });
  });

  it.each([
    ['a numeric operator on a boolean fact', '{ fact: has_plus_addressing, operator: greaterThan, value: 1 }', /operator greaterThan needs a numeric fact/],
    ['a string for a boolean fact', '{ fact: has_plus_addressing, operator: equal, value: "yes" }', /"yes" cannot be a value of this fact/],
    ['a value outside a closed set', '{ fact: subdomain_entropy, operator: equal, value: extreme }', /"extreme" cannot be a value/],
    ['in without a list', '{ fact: subdomain_count, operator: in, value: 3 }', /needs a list value/],
    ['contains on a scalar fact', '{ fact: subdomain_count, operator: contains, value: 3 }', /needs an array fact/],
    ['a number compared with a string', '{ fact: subdomain_count, operator: lessThan, value: "3" }', /needs a number value/],
  ])('refuses %s', (_name, condition, message) => {
    const problems = problemsOf(`version: "1"\nrules:\n  - name: r\n    action: block\n    error: e\n    conditions: ${condition}\n`);
    expect(problems[0]!.message).toMatch(message);
  });

  it('refuses two free rules with one name', () => {
    const rule = '  - { name: r, action: warn, warning: w, conditions: { fact: has_numeric, operator: equal, value: true } }\n';
    expect(problemsOf(`version: "1"\nrules:\n${rule}${rule}`)[0]!.message).toBe('rule name "r" is used twice');
  });

  it('lists every problem, sorted by position', () => {
    const problems = problemsOf('version: "1"\nchecks:\n  nope_one: {}\n  nope_two: {}\n');
    expect(problems.map((p) => p.line)).toEqual([3, 4]);
  });

  it('reports schema and semantic problems in one pass: a schema problem hides none of the others', () => {
    const yaml = [
      'version: "1.0"',
      'checks:',
      '  structure: { mode: hardd, action: block }',
      '  disposible_domain: { mode: hard }',
      'rules:',
      '  - name: young',
      '    conditions: { all: [ { fact: domain_age_dayz, operator: lessThan, value: 30 } ] }',
      '    action: challenge',
      '    warning: young_domain',
      'intelligence:',
      '  parent_rules: [ { field: domain_disposible, operator: "==", target: { bool: true }, action: blok } ]',
      '',
    ].join('\n');
    expect(problemsOf(yaml).map((p) => `${p.line}:${p.column} ${p.path}: ${p.message.replace(/^must be one of: [^;]*; /, '')}`)).toEqual([
      '3:22 /checks/structure/mode: got "hardd"; did you mean "hard"?',
      '4:22 /checks/disposible_domain: unknown check "disposible_domain"; did you mean "disposable_domain"?',
      '7:34 /rules/0/conditions/all/0/fact: unknown fact "domain_age_dayz"; did you mean "domain_age_days"?',
      expect.stringMatching(
        /^11:28 \/intelligence\/parent_rules\/0\/field: unknown field "domain_disposible"; did you mean "domain_disposable"\? Known fields \(the 5 nearest of \d+\): domain_disposable, /,
      ),
      '11:95 /intelligence/parent_rules/0/action: got "blok"; did you mean "block"?',
    ]);
  });

  it('names a place once: a fact the schema refused is not also reported unknown', () => {
    const problems = problemsOf(
      'version: "1"\nrules:\n  - { name: r, action: warn, warning: w, conditions: { fact: Has_Numeric, operator: equal, value: true } }\n',
    );
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ path: '/rules/0/conditions/fact' });
    expect(problems[0]!.message).toMatch(/pattern/);
  });

  it('refuses two rule names that answer as one rule_<name>', () => {
    const rule = (name: string) => `  - { name: ${name}, action: warn, warning: w, conditions: { fact: has_numeric, operator: equal, value: true } }`;
    const [p] = problemsOf(['version: "1"', 'rules:', rule('a-b'), rule('a_b'), ''].join('\n'));
    expect(p).toMatchObject({ path: '/rules/1/name', message: 'rule names "a-b" and "a_b" both answer as rule_a_b: rename one' });
  });

  it("refuses test expectations the policy can never answer: unknown flags and fired names, another plugin's flag", () => {
    const yaml = [
      'version: "1"',
      'checks:',
      '  free_provider_domain: { mode: soft }',
      'tests:',
      '  - name: t',
      '    input: { email_address: a@gmail.com }',
      '    expected: { is_free_provider: true, is_disposable_domain: false, risk_level: high, fired: [free_provider_domian] }',
      '',
    ].join('\n');
    expect(problemsOf(yaml).map((p) => [p.path, p.message])).toEqual([
      ['/tests/0/expected/is_free_provider', 'unknown flag "is_free_provider"; did you mean "is_free_provider_domain"?'],
      [
        '/tests/0/expected/is_disposable_domain',
        'the policy enables no check of plugin disposable (disposable_domain), so its answers never carry is_disposable_domain',
      ],
      ['/tests/0/expected/risk_level', 'the policy enables no check of plugin risk (risk_score), so its answers never carry risk_level'],
      [
        '/tests/0/expected/fired/0',
        '"free_provider_domian" is not an enabled check, a free rule or an on_unknown of this policy; did you mean "free_provider_domain"?',
      ],
    ]);
  });
});

describe('deciding', () => {
  it('hard mode: the code goes to errors and the action is the check action', async () => {
    const { decision } = await decideFor('version: "1"\nchecks:\n  local_plus: { mode: hard }\n', 'a+b@example.com');
    expect(decision).toMatchObject({ action: 'block', errors: ['local_contains_plus_symbol'], warnings: [] });
  });

  it('soft mode: the code goes to warnings and the action defaults to allow', async () => {
    const { decision } = await decideFor('version: "1"\nchecks:\n  local_plus: { mode: soft }\n', 'a+b@example.com');
    expect(decision).toMatchObject({ action: 'allow', errors: [], warnings: ['local_contains_plus_symbol'] });
  });

  it('the most severe fired action wins', async () => {
    const yaml =
      'version: "1"\nchecks:\n  local_plus: { mode: soft, action: challenge }\n  local_numeric: { mode: soft, action: warn }\n  tld: { mode: hard, action: quarantine }\n';
    const { decision } = await decideFor(yaml, '123+4@example.notatld');
    expect(decision.action).toBe('quarantine');
    expect(decision.errors).toEqual(['invalid_tld']);
    expect(decision.warnings).toEqual(['local_contains_plus_symbol']);
  });

  it('default_action when rules ran and none fired; none when nothing is enabled', async () => {
    expect((await decideFor('version: "1"\ndefault_action: allow_with_review\nchecks:\n  local_plus: {}\n', 'ab@example.com')).decision.action).toBe(
      'allow_with_review',
    );
    expect((await decideFor('version: "1"\ndefault_action: block\n', 'a+b@example.com')).decision.action).toBe('none');
  });

  it('action none observes: no code and nothing added; the default action applies, or the most severe other action', async () => {
    const yaml = 'version: "1"\ndefault_action: allow\nchecks:\n  local_plus: { mode: soft, action: none }\n  tld: { mode: hard, action: challenge }\n';
    const alone = await decideFor(yaml, 'jane+x@example.com');
    expect([alone.decision.action, alone.decision.warnings, alone.decision.fired.map((v) => v.name)]).toEqual(['allow', [], ['local_plus']]);
    // Its facts are still there for the answer and for rules.
    expect(await alone.evaluation.fact('has_plus_addressing')).toBe(true);
    const beside = (await decideFor(yaml, 'jane+x@example.notatld')).decision;
    expect([beside.action, beside.errors, beside.warnings]).toEqual(['challenge', ['invalid_tld'], []]);
  });

  it('free rules contribute their action and their code', async () => {
    const yaml = [
      'version: "1"',
      'rules:',
      '  - name: deep-and-numeric',
      '    action: challenge',
      '    warning: suspicious_shape',
      '    conditions: { all: [ { fact: subdomain_count, operator: greaterThanInclusive, value: 2 }, { fact: has_numeric, operator: equal, value: true } ] }',
    ].join('\n');
    expect((await decideFor(yaml, 'a1@x.y.example.com')).decision).toMatchObject({ action: 'challenge', warnings: ['suspicious_shape'] });
    expect((await decideFor(yaml, 'a@x.y.example.com')).decision).toMatchObject({ action: 'allow', warnings: [] });
  });

  it('a check whose facts are unknown does not fire; on_unknown decides', async () => {
    const ignore = await decideFor('version: "1"\nchecks:\n  local_plus: { mode: hard }\n', 'no-at-sign');
    expect(ignore.decision).toMatchObject({ action: 'allow', errors: [] });
    const block = await decideFor('version: "1"\nchecks:\n  local_plus: { mode: soft, on_unknown: block }\n', 'no-at-sign');
    // on_unknown names why it decided: the check and that its evidence was unknown (a warning in soft mode).
    expect(block.decision).toMatchObject({ action: 'block', errors: [], warnings: ['local_plus_unknown'] });
  });

  it('on_unknown also applies to a value its fact declares unknown (domain_health "unknown" when DNS is off)', async () => {
    const ignore = await decideFor('version: "1"\nchecks:\n  domain_health: { mode: hard }\n', 'a@example.com');
    expect(ignore.decision.action).toBe('allow');
    expect(await ignore.evaluation.fact('domain_health')).toBe('unknown');
    const block = await decideFor('version: "1"\nchecks:\n  domain_health: { mode: hard, on_unknown: block }\n', 'a@example.com');
    expect(block.decision).toMatchObject({ action: 'block', errors: ['domain_health_unknown'] });
  });

  it('runs only the plugins the rules need', async () => {
    const { evaluation } = await decideFor('version: "1"\nchecks:\n  local_plus: { mode: hard }\n', 'a+b@example.com');
    expect(evaluation.pluginsRan).toEqual(['structure', 'local-part']);
  });
});

// The rule walk of src/engine/rule-evaluation.ts: json-rules-engine's rules must still evaluate through the
// installed method (an upgrade that moves or renames it fails here), and every policy of the repository
// must give, through it, what the upstream method gives: the decision, the rules that fired, every
// condition's result (the explanation), the plugins that ran and the I/O facts read, on addresses that take
// every path (invalid, listed, role, IDN, typo, numeric, with an IP whose history answers after a wait).
import { createHook } from 'node:async_hooks';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Almanac, Engine, type RuleProperties, type RuleResult } from 'json-rules-engine';
import { afterEach, describe, expect, it } from 'vitest';
import { registry } from '../../plugins/index.js';
import { FactCatalog } from '../../src/engine/catalog.js';
import type { Velocity, VelocityReader } from '../../src/engine/plugin.js';
import { NOT_YET, type NowAlmanac, type RulesOutcome, runRules, upstreamRuleEvaluate, WALKED_EVALUATE } from '../../src/engine/rule-evaluation.js';
import '../../src/engine/run.js';
import { packageRoot } from '../../src/paths.js';
import { haltsAfter } from '../../src/policy/compile-verdict.js';
import { evaluate } from '../../src/policy/evaluate.js';
import { loadPolicy } from '../../src/policy/load.js';

const catalog = new FactCatalog(registry);
const ruleClass = Object.getPrototypeOf(
  (new Engine([]).addRule({ name: 'r', event: { type: 'r' }, conditions: { all: [] } }) as unknown as { rules: object[] }).rules[0],
) as {
  evaluate: unknown;
};
const installed = ruleClass.evaluate;
afterEach(() => {
  ruleClass.evaluate = installed;
});

/** A history that answers after a timer, as the store does: the walk meets facts not yet at hand. */
const slowHistory: VelocityReader = {
  byIp: ({ since }) =>
    new Promise<Velocity>((resolve) =>
      setTimeout(
        () =>
          resolve({
            emails: [
              { email: 'a@example.com', at: Date.now() - 60_000 },
              { email: 'b@example.com', at: Date.now() - 120_000 },
            ],
            distinctEmails: 7,
            total: 40,
            since: since.map((_, i) => 3 + i),
          }),
        2,
      ),
    ),
  byDevice: ({ since }) =>
    new Promise<Velocity>((resolve) => setTimeout(() => resolve({ emails: [], distinctEmails: 0, total: 0, since: since.map(() => 0) }), 1)),
};

const ADDRESSES = [
  'jane.doe+news@gmail.com',
  'not an address',
  'admin@example.com',
  'x@mailinator.com',
  'jane@gmial.com',
  '12345678@example.org',
  'jöhn@bücher.example',
  'a@xn--bcher-kva.example',
  'user@[192.0.2.1]',
  'qwxzkjhgf8731@a1b2c3d4e5.sub.deep.example.net',
  'student@mit.edu',
  '',
];

async function outcome(policyName: string, email: string, ipv4: string | null) {
  const policy = loadPolicy({ name: policyName, file: join(packageRoot, 'policies', `${policyName}.yaml`) }, catalog);
  const evaluation = await evaluate(
    policy,
    { email, ipv4, ipv6: null, softCheck: false, projectId: 'p', device: null },
    { velocity: slowHistory, now: () => 1_800_000_000_000 },
    { explain: true },
  );
  return {
    decision: evaluation.decision,
    explanation: evaluation.explanation,
    ran: [...evaluation.pluginsRan].sort(),
    applied: [...evaluation.pluginsApplied].sort(),
    recorded: await evaluation.recorded(),
    checkedTypes: await evaluation.checkedTypes(),
  };
}

describe('rule evaluation by a synchronous walk', () => {
  it('is the method json-rules-engine rules evaluate with', () => {
    expect((installed as Record<symbol, boolean>)[WALKED_EVALUATE], 'json-rules-engine no longer evaluates rules with the installed method').toBe(true);
  });

  const policies = readdirSync(join(packageRoot, 'policies'))
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => f.replace(/\.yaml$/, ''));
  it.each(policies)('gives what the upstream method gives on every address of the sample, policy %s', async (name) => {
    expect(policies.length).toBeGreaterThanOrEqual(4);
    for (const email of ADDRESSES) {
      for (const ipv4 of [null, '198.51.100.7']) {
        const walked = await outcome(name, email, ipv4);
        ruleClass.evaluate = upstreamRuleEvaluate;
        const upstream = await outcome(name, email, ipv4);
        ruleClass.evaluate = installed;
        expect(walked, `${name}: ${email} from ${ipv4}`).toEqual(upstream);
      }
    }
  });

  it('takes the walk on the engines of the runner: an evaluation makes under half the promises the upstream method makes', async () => {
    const policy = loadPolicy({ name: 'default', file: join(packageRoot, 'policies', 'default.yaml') }, catalog);
    const promisesOf = async () => {
      let made = 0;
      const hook = createHook({
        init(_id, type) {
          if (type === 'PROMISE') made += 1;
        },
      }).enable();
      for (let n = 0; n < 20; n++) {
        await evaluate(
          policy,
          { email: `jane${n}@example.com`, ipv4: null, ipv6: null, softCheck: false, projectId: 'p', device: null },
          { velocity: slowHistory, now: Date.now },
        );
      }
      hook.disable();
      return made / 20;
    };
    await promisesOf(); // plugins' lazy data loaded, engines pooled
    const walked = await promisesOf();
    ruleClass.evaluate = upstreamRuleEvaluate;
    const upstream = await promisesOf();
    ruleClass.evaluate = installed;
    expect(walked).toBeLessThan(upstream / 2);
  });

  it('has every plugin of the registry answer at once with network checks off and no IP (none waits without I/O)', async () => {
    // No rules: no plugin runs before factsNow asks, so each one must answer then, not after a wait.
    const policy = loadPolicy({ name: 'none', file: 'none.yaml', text: 'version: "1.0"\nchecks: {}\n' }, catalog);
    const every = registry.flatMap((plugin) => Object.keys(plugin.facts));
    for (const email of ADDRESSES) {
      const evaluation = await evaluate(
        policy,
        { email, ipv4: null, ipv6: null, softCheck: false, projectId: 'p', device: null },
        { velocity: slowHistory, now: Date.now },
      );
      const waiting = registry.filter((plugin) => evaluation.factsNow(Object.keys(plugin.facts)) === null).map((plugin) => plugin.id);
      expect(waiting, email).toEqual([]);
      expect(evaluation.factsNow(every)).toHaveLength(every.length);
    }
  });

  it('waits for a fact not yet at hand and reads no fact the upstream method would not', async () => {
    const policy = loadPolicy(
      {
        name: 'walk',
        file: 'walk.yaml',
        text: `version: "1.0"
checks:
  local_numeric: { mode: soft, action: challenge }
rules:
  # velocity (I/O, low priority) is read only when the cheap fact holds.
  - name: busy_numeric
    conditions: { all: [{ fact: distinct_emails_in_ip, operator: greaterThan, value: 5 }, { fact: local_is_numeric, operator: equal, value: true }] }
    action: block
  - name: none_or_busy
    conditions: { any: [{ fact: local_is_numeric, operator: equal, value: true }, { not: { fact: total_email_in_ip, operator: lessThan, value: 10 } }] }
    action: challenge
`,
      },
      catalog,
    );
    const run = (email: string) =>
      evaluate(policy, { email, ipv4: '198.51.100.7', ipv6: null, softCheck: false, projectId: 'p', device: null }, { velocity: slowHistory, now: Date.now });
    const numeric = await run('12345678@example.com');
    expect(numeric.decision.action).toBe('block');
    expect(numeric.pluginsRan).toContain('velocity');
    const plain = await run('jane@example.com');
    // any: local_is_numeric is false, so the `not` is read: total 40 is not under 10, so it holds.
    expect(plain.decision.action).toBe('challenge');
    expect(Object.keys(await plain.recorded())).toEqual(expect.arrayContaining(['total_email_in_ip']));
    expect(Object.keys(await plain.recorded())).not.toContain('distinct_emails_in_ip');
  });
});

/** An almanac of given values, as run.ts's: `slow` facts are not at hand until a timer has fired once. */
class GivenAlmanac extends Almanac implements NowAlmanac {
  private ready = new Set<string>();
  readonly read: string[] = [];

  constructor(
    private readonly values: ReadonlyMap<string, unknown>,
    private readonly slow: ReadonlySet<string>,
  ) {
    super({ allowUndefinedFacts: false });
  }

  private wait(fact: string): Promise<void> {
    return new Promise((resolve) =>
      setTimeout(() => {
        this.ready.add(fact);
        resolve();
      }, 1),
    );
  }

  override factValue<T>(fact: string): Promise<T> {
    this.read.push(fact);
    const value = (this.values.get(fact) ?? null) as T;
    return this.slow.has(fact) && !this.ready.has(fact) ? this.wait(fact).then(() => value) : Promise.resolve(value);
  }

  factNow(fact: string, waits: Set<Promise<unknown>>): unknown {
    this.read.push(fact);
    if (this.slow.has(fact) && !this.ready.has(fact)) {
      waits.add(this.wait(fact));
      return NOT_YET;
    }
    return this.values.get(fact) ?? null;
  }
}

describe('runRules, in place of Engine#run', () => {
  const policies = readdirSync(join(packageRoot, 'policies'))
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => f.replace(/\.yaml$/, ''));
  const rulesOf = (runner: unknown) => (runner as { rules: RuleProperties[] }).rules;
  const engineOf = (rules: readonly RuleProperties[]) => {
    const engine = new Engine([], { allowUndefinedFacts: false, replaceFactsInEventParams: false });
    for (const rule of rules) engine.addRule(structuredClone(rule));
    return engine;
  };
  const seen = (results: Array<{ name: unknown; result: boolean; conditions: unknown }>) =>
    results.map((r) => ({ name: r.name, result: r.result, conditions: JSON.parse(JSON.stringify(r.conditions)) }));

  it.each(policies)('settles the rules and sets that Engine#run settles, in its order, for the checks and the verdict of policy %s', async (name) => {
    const policy = loadPolicy({ name, file: join(packageRoot, 'policies', `${name}.yaml`) }, catalog);
    const every = registry.flatMap((plugin) => Object.keys(plugin.facts));
    // Velocity and the network answer after a wait, as in a service.
    const slow = new Set(registry.filter((plugin) => plugin.io).flatMap((plugin) => Object.keys(plugin.facts)));
    const verdictHalts = (rule: string) => haltsAfter(policy.verdict, rule);
    expect(policy.verdict.stopOnBlock, `${name}: a verdict with stop_on_block, a set per parent rule`).toBe(true);
    expect(rulesOf(policy.verdict.runner).length).toBeGreaterThan(3);
    let halted = 0;
    for (const email of ADDRESSES) {
      for (const ipv4 of [null, '198.51.100.7']) {
        const evaluation = await evaluate(
          policy,
          { email, ipv4, ipv6: null, softCheck: false, projectId: 'p', device: null },
          { velocity: slowHistory, now: () => 1_800_000_000_000 },
        );
        const facts = await evaluation.facts(every);
        const values = new Map(every.map((fact, i) => [fact, facts[i]]));
        for (const [rules, halts] of [
          [rulesOf(policy.runner), undefined],
          [rulesOf(policy.verdict.runner), verdictHalts],
        ] as const) {
          const upstream = engineOf(rules);
          if (halts) upstream.on('success', (_event, _almanac, result) => (halts(result.name) ? upstream.stop() : undefined));
          const upstreamAlmanac = new GivenAlmanac(values, slow);
          const expected = await upstream.run({}, { almanac: upstreamAlmanac });
          const almanac = new GivenAlmanac(values, slow);
          const ours = await runRules<RuleResult>(engineOf(rules), almanac, halts);
          const where = `${name}: ${email} from ${ipv4}`;
          expect(seen(ours.results), where).toEqual(seen(expected.results));
          expect(seen(ours.failureResults), where).toEqual(seen(expected.failureResults));
          expect(new Set(almanac.read), where).toEqual(new Set(upstreamAlmanac.read));
          if (expected.results.length + expected.failureResults.length < rules.length) halted += 1;
        }
      }
    }
    // The sample takes the stop: some verdict halted before its last set.
    expect(halted).toBeGreaterThan(0);
  });

  it('answers without a promise when every fact is at hand, and evaluates every rule of a set before it halts', async () => {
    const engine = new Engine([], { allowUndefinedFacts: false });
    const rule = (name: string, priority: number, value: number): RuleProperties => ({
      name,
      priority,
      conditions: { all: [{ fact: 'x', operator: 'equal', value }] },
      event: { type: name },
    });
    engine.addRule(rule('first', 3, 1));
    engine.addRule(rule('same set', 3, 2));
    engine.addRule(rule('stop', 2, 1));
    engine.addRule(rule('after the stop', 1, 1));
    const ours = runRules<RuleResult>(engine, new GivenAlmanac(new Map([['x', 1]]), new Set()), (name) => name === 'stop');
    expect(ours).not.toBeInstanceOf(Promise);
    const { results, failureResults } = ours as RulesOutcome<RuleResult>;
    expect(results.map((r) => r.name)).toEqual(['first', 'stop']);
    expect(failureResults.map((r) => r.name)).toEqual(['same set']);
    // A fact that waits: a promise, and the same outcome.
    const waited = runRules<RuleResult>(engine, new GivenAlmanac(new Map([['x', 1]]), new Set(['x'])), (name) => name === 'stop');
    expect(waited).toBeInstanceOf(Promise);
    expect((await waited).results.map((r) => r.name)).toEqual(['first', 'stop']);
  });
});

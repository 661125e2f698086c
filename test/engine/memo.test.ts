// Pure plugins' runs remembered by what they read (src/engine/memo.ts): a later request whose reads give
// values seen before takes that run's facts without running it, and nothing a caller sees changes: the facts,
// the plugins that ran and their order, the steps and checked types of every shipped policy.
import { describe, expect, it } from 'vitest';
import { FactCatalog, RegistryError } from '../../src/engine/catalog.js';
import { MEMO_MAX_RUNS, valuesKey } from '../../src/engine/memo.js';
import { noHistory } from '../../src/engine/no-history.js';
import type { CheckOptions, FactValues, Plugin, PluginContext, ProjectListReader } from '../../src/engine/plugin.js';
import { PolicyRunner, type RunOutcome } from '../../src/engine/run.js';
import type { CompiledPolicy } from '../../src/policy/compile.js';
import { POLICIES, ROWS, type Row } from '../policies/shipped-policy-rows.js';
import { evaluateFor } from '../support/plugin-tester.js';

function plugin(
  id: string,
  facts: string[],
  needs: string[],
  run: (ctx: PluginContext) => Promise<FactValues> | FactValues,
  extra: Partial<Plugin> = {},
): Plugin {
  return {
    id,
    description: `test plugin ${id}`,
    steps: [],
    facts: Object.fromEntries(facts.map((name) => [name, { type: 'string' as const, description: `fact ${name}` }])),
    checks: {},
    needs,
    run,
    ...extra,
  };
}

/** The address's domain, from the request: what a pure plugin may not read itself. */
const address = plugin('address', ['domain', 'local'], [], (ctx) => {
  const [local, domain] = ctx.input.email.split('@');
  return { domain: domain ?? null, local: local ?? null };
});

/** A pure plugin counting its runs: the domain upper-cased. */
function counted(extra: Partial<Plugin> = { pure: true }): { plugin: Plugin; runs: () => number } {
  let runs = 0;
  const upper = plugin(
    'upper',
    ['upper_domain'],
    ['address'],
    (ctx) => {
      runs += 1;
      return ctx.withFacts(['domain'], ([domain]) => ({ upper_domain: typeof domain === 'string' ? domain.toUpperCase() : null }));
    },
    extra,
  );
  return { plugin: upper, runs: () => runs };
}

interface Asked {
  outcome: RunOutcome;
  values: unknown[];
  errors: Array<[string, unknown]>;
}

async function ask(
  runner: PolicyRunner,
  options: Readonly<Record<string, CheckOptions>>,
  email: string,
  read: string[],
  lists?: ProjectListReader,
): Promise<Asked> {
  const errors: Array<[string, unknown]> = [];
  const outcome = await runner.run({
    input: { email, ipv4: null, ipv6: null, softCheck: false, projectId: 'p', device: null },
    options,
    services: { velocity: noHistory, now: () => 0, onPluginError: (id, e) => errors.push([id, e]), ...(lists ? { lists } : {}) },
  });
  return { outcome, values: await outcome.facts(read), errors };
}

describe('a pure plugin', () => {
  it('runs once for reads it has seen, and again for a value it has not', async () => {
    const { plugin: upper, runs } = counted();
    const runner = new PolicyRunner(new FactCatalog([address, upper]), []);
    const options = {};
    expect((await ask(runner, options, 'a@x.example', ['upper_domain'])).values).toEqual(['X.EXAMPLE']);
    expect((await ask(runner, options, 'b@x.example', ['upper_domain'])).values).toEqual(['X.EXAMPLE']);
    expect(runs()).toBe(1);
    expect((await ask(runner, options, 'c@y.example', ['upper_domain'])).values).toEqual(['Y.EXAMPLE']);
    expect(runs()).toBe(2);
    // Another policy's options: runs remembered under one policy are not another's.
    await ask(runner, {}, 'd@x.example', ['upper_domain']);
    expect(runs()).toBe(3);
  });

  it('runs every time when not declared pure', async () => {
    const { plugin: upper, runs } = counted({});
    const runner = new PolicyRunner(new FactCatalog([address, upper]), []);
    const options = {};
    await ask(runner, options, 'a@x.example', ['upper_domain']);
    await ask(runner, options, 'b@x.example', ['upper_domain']);
    expect(runs()).toBe(2);
  });

  it('starts the plugins it reads, in the order its run would, when its run is remembered', async () => {
    const first = plugin('first', ['first_value'], [], () => ({ first_value: 'one' }));
    const second = plugin('second', ['second_value'], ['address'], (ctx) => ctx.withFacts(['local'], ([local]) => ({ second_value: local })));
    const reader = plugin(
      'reader',
      ['joined'],
      ['first', 'second', 'address'],
      (ctx) =>
        ctx.withFacts(['domain'], ([domain]) =>
          domain === 'skip.example' ? { joined: 'skipped' } : ctx.withFacts(['first_value', 'second_value'], ([a, b]) => ({ joined: `${a}+${b}` })),
        ),
      { pure: true },
    );
    const runner = new PolicyRunner(new FactCatalog([address, first, second, reader]), []);
    const options = {};
    const cold = await ask(runner, options, 'a@x.example', ['joined']);
    expect(cold.values).toEqual(['one+a']);
    expect(cold.outcome.pluginsRan).toEqual(['address', 'first', 'second', 'reader']);
    // Remembered by its reads: second's fact (the local part) is one of them, so another local part runs it again.
    const warm = await ask(runner, options, 'a@x.example', ['joined']);
    expect(warm.outcome.pluginsRan).toEqual(['address', 'first', 'second', 'reader']);
    expect((await ask(runner, options, 'b@x.example', ['joined'])).values).toEqual(['one+b']);
    // A branch that reads less starts less, remembered or not.
    const skipped = await ask(runner, options, 'a@skip.example', ['joined']);
    const skippedAgain = await ask(runner, options, 'a@skip.example', ['joined']);
    expect(skipped.values).toEqual(['skipped']);
    expect(skippedAgain.outcome.pluginsRan).toEqual(['address', 'reader']);
    expect(skippedAgain.outcome.pluginsRan).toEqual(skipped.outcome.pluginsRan);
  });

  it('is remembered by the identity of the project lists it read: a changed list runs it again', async () => {
    let runs = 0;
    const listed = plugin(
      'listed',
      ['is_listed'],
      ['address'],
      (ctx) => {
        runs += 1;
        return ctx.withFacts(['domain'], ([domain]) => {
          const entries = ctx.projectList('listed');
          if (entries instanceof Promise) throw new Error('lists are in memory in this test');
          return { is_listed: String(entries.has(String(domain))) };
        });
      },
      { pure: true, projectLists: ['listed'] },
    );
    const runner = new PolicyRunner(new FactCatalog([address, listed]), []);
    const options = {};
    let entries: ReadonlySet<string> = new Set(['x.example']);
    const lists: ProjectListReader = { entries: () => entries };
    expect((await ask(runner, options, 'a@x.example', ['is_listed'], lists)).values).toEqual(['true']);
    expect((await ask(runner, options, 'b@x.example', ['is_listed'], lists)).values).toEqual(['true']);
    expect(runs).toBe(1);
    entries = new Set();
    expect((await ask(runner, options, 'c@x.example', ['is_listed'], lists)).values).toEqual(['false']);
    expect(runs).toBe(2);
  });

  it('fails, naming itself and what it read, when it reads the request, the clock, the history or the network', async () => {
    const cases: Array<[string, (ctx: PluginContext) => unknown]> = [
      ['ctx.input', (ctx) => ctx.input.email],
      ['ctx.now()', (ctx) => ctx.now()],
      ['ctx.velocity', (ctx) => ctx.velocity],
      ['ctx.network', (ctx) => ctx.network],
    ];
    for (const [what, read] of cases) {
      const impure = plugin('impure', ['impure_value'], [], (ctx) => ({ impure_value: String(read(ctx)) }), { pure: true });
      const runner = new PolicyRunner(new FactCatalog([impure]), []);
      const { values, errors } = await ask(runner, {}, 'a@x.example', ['impure_value']);
      expect(values).toEqual([null]);
      expect(errors).toHaveLength(1);
      expect(String(errors[0]?.[1])).toContain(`plugin impure is declared pure (Plugin.pure) but read ${what}`);
    }
  });

  it('is not remembered when a read must wait, or a value is not a scalar', async () => {
    const slow = plugin('slow', ['slow_value'], [], async () => ({ slow_value: 'late' }));
    let waited = 0;
    const afterWait = plugin(
      'after-wait',
      ['after_value'],
      ['slow'],
      (ctx) => {
        waited += 1;
        return ctx.withFacts(['slow_value'], ([value]) => ({ after_value: `${value}!` }));
      },
      { pure: true },
    );
    const list = plugin('list', ['list_value'], [], () => ({ list_value: ['a', 'b'] as unknown as string }));
    let listed = 0;
    const afterList = plugin(
      'after-list',
      ['count_value'],
      ['list'],
      (ctx) => {
        listed += 1;
        return ctx.withFacts(['list_value'], ([value]) => ({ count_value: String((value as string[]).length) }));
      },
      { pure: true },
    );
    const runner = new PolicyRunner(new FactCatalog([slow, afterWait, list, afterList]), []);
    const options = {};
    for (let i = 0; i < 3; i++) {
      expect((await ask(runner, options, 'a@x.example', ['after_value', 'count_value'])).values).toEqual(['late!', '2']);
    }
    expect(waited).toBe(3);
    expect(listed).toBe(3);
  });

  it(`keeps at most ${MEMO_MAX_RUNS} runs per plugin and policy, then begins again`, async () => {
    const { plugin: upper, runs } = counted();
    const runner = new PolicyRunner(new FactCatalog([address, upper]), []);
    const options = {};
    for (let i = 0; i < MEMO_MAX_RUNS; i++) await ask(runner, options, `a@d${i}.example`, ['upper_domain']);
    await ask(runner, options, 'a@d0.example', ['upper_domain']);
    expect(runs()).toBe(MEMO_MAX_RUNS);
    // One more distinct domain overflows the tree: it is dropped, and d0 runs again.
    await ask(runner, options, 'a@overflow.example', ['upper_domain']);
    await ask(runner, options, 'a@d0.example', ['upper_domain']);
    expect(runs()).toBe(MEMO_MAX_RUNS + 2);
  });

  it('shares frozen facts: a caller cannot change what the next request gets', async () => {
    const shaped = plugin(
      'shaped',
      ['shape'],
      ['address'],
      (ctx) => ctx.withFacts(['domain'], ([domain]) => ({ shape: { labels: String(domain).split('.') } as unknown as string })),
      {
        pure: true,
      },
    );
    const runner = new PolicyRunner(new FactCatalog([address, shaped]), []);
    const options = {};
    await ask(runner, options, 'a@x.example', ['shape']);
    const [shape] = (await ask(runner, options, 'b@x.example', ['shape'])).values as [{ labels: string[] }];
    expect(() => shape.labels.push('more')).toThrow(TypeError);
    expect((await ask(runner, options, 'c@x.example', ['shape'])).values).toEqual([{ labels: ['x', 'example'] }]);
  });

  it('may not do I/O', () => {
    const both = plugin('both', ['both_value'], [], () => ({}), { pure: true, io: true });
    expect(() => new FactCatalog([both])).toThrow(RegistryError);
  });
});

describe('valuesKey', () => {
  it('tells apart values that would join alike', () => {
    const keys = [
      valuesKey(['ab', 'c']),
      valuesKey(['a', 'bc']),
      valuesKey([null]),
      valuesKey(['n']),
      valuesKey([true]),
      valuesKey(['t']),
      valuesKey([1, 2]),
      valuesKey([12]),
      valuesKey(['']),
      valuesKey([]),
    ];
    expect(new Set(keys).size).toBe(keys.length);
    expect(valuesKey([['a']])).toBeUndefined();
    expect(valuesKey([{ a: 1 }])).toBeUndefined();
  });
});

/** Everything a caller of evaluate() sees of one request (a plugin that throws, an impure read say, fails it). */
async function seen(policy: CompiledPolicy, email: string, network: Row['network']): Promise<unknown> {
  const at = 1_790_000_000_000;
  const evaluation = await evaluateFor(policy, { email, ipv4: '192.0.2.1' }, { network, now: () => at });
  const names = policy.enabledPlugins.flatMap((p) => Object.keys(p.facts));
  return {
    decision: evaluation.decision,
    ran: [...evaluation.pluginsRan],
    applied: [...evaluation.pluginsApplied],
    steps: await evaluation.steps(),
    checkedTypes: await evaluation.checkedTypes(),
    facts: await evaluation.facts(names),
    recorded: await evaluation.recorded(),
  };
}

describe('every shipped policy answers alike with its pure plugins remembered', () => {
  const cases: Array<Pick<Row, 'email' | 'network'>> = [
    ...ROWS,
    ...[
      'jane@example.com',
      'john@example.com',
      'jane@gmail.com',
      'jane@gmial.com',
      'jane@mail.example.co.uk',
      'jane@münchen.example',
      'jane@xn--mnchen-3ya.example',
      ' jane@example.com ',
      'not-an-address',
    ].map((email) => ({ email })),
  ];
  for (const policy of POLICIES) {
    it(policy.name, async () => {
      // Each case twice, in both orders, each time with the network answers of its row (DNS, registration) or none.
      for (const { email, network } of [...cases, ...[...cases].reverse()]) {
        // A copy of the options: a policy of its own, whose pure plugins have remembered nothing.
        const cold = await seen({ ...policy, options: { ...policy.options } }, email, network);
        expect(await seen(policy, email, network), email).toEqual(cold);
      }
    });
  }
});

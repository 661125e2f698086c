// The runner and the catalog keep the plugin contract's promises: `needs` is enforced when a plugin reads,
// the registry is checked when it is indexed, a plugin runs once per request, and a failing plugin makes
// only its own facts unknown.
import { describe, expect, it } from 'vitest';
import { registry } from '../../plugins/index.js';
import { FactCatalog, RegistryError } from '../../src/engine/catalog.js';
import { noHistory } from '../../src/engine/no-history.js';
import type { FactValues, Plugin, PluginContext, ProjectListReader } from '../../src/engine/plugin.js';
import { PolicyRunner, type RunOutcome, UndeclaredNeedError, UnknownFactError } from '../../src/engine/run.js';
import { OFFLINE } from '../../src/network/offline.js';

function plugin(id: string, facts: string[], needs: string[], run: (ctx: PluginContext) => Promise<FactValues> | FactValues, checks: string[] = []): Plugin {
  return {
    id,
    description: `test plugin ${id}`,
    steps: [],
    facts: Object.fromEntries(facts.map((name) => [name, { type: 'string' as const, description: `fact ${name}` }])),
    checks: Object.fromEntries(checks.map((name) => [name, { description: name, when: { fact: facts[0] as string, operator: 'equal' as const, value: 'x' } }])),
    needs,
    run: async (ctx) => run(ctx),
  };
}

const source = plugin('source', ['source_value'], [], () => ({ source_value: 'x' }));

async function run(
  plugins: Plugin[],
  read: string[],
  lists?: ProjectListReader,
): Promise<{ outcome: RunOutcome; errors: Array<[string, unknown]>; values: unknown[] }> {
  const errors: Array<[string, unknown]> = [];
  const runner = new PolicyRunner(new FactCatalog(plugins), []);
  const outcome = await runner.run({
    input: { email: 'a@example.com', ipv4: null, ipv6: null, softCheck: false, projectId: 'p', device: null },
    options: {},
    services: {
      velocity: noHistory,
      network: OFFLINE,
      now: Date.now,
      onPluginError: (id, e) => errors.push([id, e]),
      ...(lists ? { lists } : {}),
    },
  });
  const values = [];
  for (const name of read) values.push(await outcome.fact(name));
  return { outcome, errors, values };
}

describe('needs, enforced when a plugin reads', () => {
  it('lets a plugin read the facts of a plugin it needs', async () => {
    const reader = plugin('reader', ['read_value'], ['source'], async (ctx) => ({ read_value: await ctx.fact('source_value') }));
    const { values, errors } = await run([source, reader], ['read_value']);
    expect(errors).toEqual([]);
    expect(values).toEqual(['x']);
  });

  it('fails a plugin that reads a fact of a plugin it does not need, naming both; its facts are unknown', async () => {
    const reader = plugin('reader', ['read_value'], [], async (ctx) => ({ read_value: await ctx.fact('source_value') }));
    const { values, errors } = await run([source, reader], ['read_value']);
    expect(values).toEqual([null]);
    expect(errors).toHaveLength(1);
    const [id, error] = errors[0] as [string, Error];
    expect(id).toBe('reader');
    expect(error).toBeInstanceOf(UndeclaredNeedError);
    expect(error.message).toBe('plugin reader read fact source_value of plugin source, which it does not declare in needs');
  });

  it('gives a group of facts read with ctx.facts in order, each as ctx.fact gives it', async () => {
    const other = plugin('other', ['other_value', 'other_absent'], [], () => ({ other_value: 'y' }));
    const reader = plugin('reader', ['read_value'], ['source', 'other'], async (ctx) => ({
      read_value: (await ctx.facts(['other_absent', 'source_value', 'other_value'])).join(','),
    }));
    const { values, errors } = await run([source, other, reader], ['read_value']);
    expect(errors).toEqual([]);
    expect(values).toEqual([',x,y']);
  });

  it('fails a plugin whose ctx.facts names a fact of a plugin it does not need, as ctx.fact does', async () => {
    const reader = plugin('reader', ['read_value'], [], async (ctx) => ({ read_value: String(await ctx.facts(['source_value'])) }));
    const { values, errors } = await run([source, reader], ['read_value']);
    expect(values).toEqual([null]);
    expect(errors.map(([id, e]) => [id, e instanceof UndeclaredNeedError, (e as Error).message])).toEqual([
      ['reader', true, 'plugin reader read fact source_value of plugin source, which it does not declare in needs'],
    ]);
  });

  it('does not let a need stand for its own needs (no reading through a neighbour)', async () => {
    const middle = plugin('middle', ['middle_value'], ['source'], async (ctx) => ({ middle_value: await ctx.fact('source_value') }));
    const reader = plugin('reader', ['read_value'], ['middle'], async (ctx) => ({ read_value: await ctx.fact('source_value') }));
    const { errors } = await run([source, middle, reader], ['read_value']);
    expect(String(errors[0]?.[1])).toMatch(/plugin reader read fact source_value of plugin source/);
  });

  it('refuses a plugin reading its own fact and a fact nobody emits', async () => {
    const self = plugin('self', ['own_value', 'other_value'], [], async (ctx) => ({ own_value: await ctx.fact('other_value') }));
    const ghost = plugin('ghost', ['ghost_value'], [], async (ctx) => ({ ghost_value: await ctx.fact('nobody_emits_this') }));
    const { errors } = await run([self, ghost], ['own_value', 'ghost_value']);
    expect(errors.map(([, e]) => (e as Error).message)).toEqual([
      'plugin self read its own fact other_value through ctx.fact; compute it in run() instead',
      'plugin ghost read fact nobody_emits_this, which no plugin emits',
    ]);
    expect(errors[1]?.[1]).toBeInstanceOf(UnknownFactError);
  });

  it('holds for every registered plugin: none reads beyond its needs on a range of addresses', async () => {
    const catalog = new FactCatalog(registry);
    const runner = new PolicyRunner(catalog, []);
    const addresses = [
      'john.doe+x@gmail.com',
      'a@b.c.d.e.example.co.uk',
      'jöhn@bücher.de',
      'x@xn--bcher-kva.de',
      'a@[192.0.2.1]',
      'no-at-sign',
      '"q"@[IPv6:2001:db8::1]',
      'a@gmial.com',
    ];
    for (const email of addresses) {
      const errors: unknown[] = [];
      const outcome = await runner.run({
        input: { email, ipv4: '203.0.113.9', ipv6: null, softCheck: true, projectId: 'p', device: null },
        options: {},
        services: {
          velocity: noHistory,
          network: OFFLINE,
          now: Date.now,
          onPluginError: (_id, e) => errors.push(e),
        },
      });
      for (const name of catalog.owner.keys()) await outcome.fact(name);
      expect(errors, email).toEqual([]);
    }
  });
});

describe('ctx.network, enforced like needs', () => {
  const probing = (id: string, network?: true): Plugin => ({
    ...plugin(id, [`${id}_value`], [], (ctx) => ({ [`${id}_value`]: ctx.network.enabled ? 'on' : 'off' })),
    io: true,
    ...(network ? { network } : {}),
  });

  it('gives ctx.network to a plugin that declares network (offline when the service has none)', async () => {
    const { values, errors } = await run([probing('lookup', true)], ['lookup_value']);
    expect(errors).toEqual([]);
    expect(values).toEqual(['off']);
  });

  it('fails a plugin that reads ctx.network without declaring it, naming it; its facts are unknown', async () => {
    const { values, errors } = await run([probing('sneaky')], ['sneaky_value']);
    expect(values).toEqual([null]);
    expect(errors.map(([id, e]) => [id, e instanceof UndeclaredNeedError, (e as Error).message])).toEqual([
      [
        'sneaky',
        true,
        'plugin sneaky read ctx.network, which it does not declare (Plugin.network): its facts would be stored as if they were no domain information',
      ],
    ]);
  });

  it("names the real registry's network plugins", () => {
    expect(registry.filter((p) => p.network).map((p) => p.id)).toEqual(['disposable-infrastructure', 'dns', 'dnsbl', 'dnsbl-ip', 'domain-age', 'website']);
  });
});

describe('project lists, enforced like needs', () => {
  const lists: ProjectListReader = { entries: async (list) => new Set(list === 'mine' ? ['listed.example'] : ['other.example']) };
  const reading = (id: string, list: string, declared?: string[]): Plugin => ({
    ...plugin(id, [`${id}_value`], [], async (ctx) => ({ [`${id}_value`]: [...(await ctx.projectList(list))].join(',') })),
    ...(declared ? { projectLists: declared } : {}),
  });

  it('gives a plugin the entries of a list it declares; none when the service has no lists', async () => {
    expect((await run([reading('reader', 'mine', ['mine'])], ['reader_value'], lists)).values).toEqual(['listed.example']);
    expect((await run([reading('reader', 'mine', ['mine'])], ['reader_value'])).values).toEqual(['']);
  });

  it('fails a plugin that reads a list it does not declare, naming both; its facts are unknown', async () => {
    const { values, errors } = await run([reading('reader', 'theirs', ['mine'])], ['reader_value'], lists);
    expect(values).toEqual([null]);
    expect(errors.map(([id, e]) => [id, e instanceof UndeclaredNeedError, (e as Error).message])).toEqual([
      ['reader', true, 'plugin reader read project list theirs, which it does not declare in projectLists'],
    ]);
  });

  it("refuses two plugins reading one list, and indexes the real registry's lists", () => {
    expect(() => new FactCatalog([reading('a', 'x', ['same']), reading('b', 'x', ['same'])])).toThrow(
      new RegistryError('project list same is read by both a and b'),
    );
    const owners = [...new FactCatalog(registry).listOwner].map(([list, owner]) => [list, owner.id]);
    expect(owners).toEqual([
      ['disposable', 'disposable'],
      ['not-disposable', 'disposable'],
      ['exempt', 'exempt-list'],
      ['known-abuse', 'known-abuse'],
      ['not-known-abuse', 'known-abuse'],
      ['spam-trap', 'spam-trap'],
      ['not-spam-trap', 'spam-trap'],
    ]);
  });
});

describe('a request run', () => {
  it('runs each plugin once however many facts are read, in the order they finish', async () => {
    let runs = 0;
    const counted = plugin('counted', ['one', 'two'], ['source'], async (ctx) => {
      runs += 1;
      return { one: await ctx.fact('source_value'), two: 'b' };
    });
    const { outcome, values } = await run([source, counted], ['one', 'two', 'one', 'source_value']);
    expect(runs).toBe(1);
    expect(values).toEqual(['x', 'b', 'x', 'x']);
    expect(outcome.pluginsRan).toEqual(['source', 'counted']);
  });

  it('reports a plugin that ran with nothing to tell (every fact null or an unknown value) as ran but not applied', async () => {
    const nothing = plugin('nothing', ['nothing_value'], [], () => ({ nothing_value: null }));
    const unsure: Plugin = {
      ...plugin('unsure', ['unsure_value'], [], () => ({ unsure_value: 'not_checked' })),
      facts: { unsure_value: { type: 'string', description: 'x', values: ['yes', 'not_checked'], unknownValues: ['not_checked'] } },
    };
    const { outcome } = await run([source, nothing, unsure], ['source_value', 'nothing_value', 'unsure_value']);
    expect(outcome.pluginsRan).toEqual(['source', 'nothing', 'unsure']);
    expect(outcome.pluginsApplied).toEqual(['source']);
  });

  it('answers facts() in one array, running the plugins behind names that have not run, each once', async () => {
    let runs = 0;
    const later = plugin('later', ['later_value', 'later_null'], [], () => {
      runs += 1;
      return { later_value: 'y' };
    });
    const { outcome } = await run([source, later], ['source_value']);
    expect(outcome.pluginsRan).toEqual(['source']);
    expect(await outcome.facts(['later_value', 'source_value', 'later_null'])).toEqual(['y', 'x', null]);
    expect(await outcome.facts(['later_null', 'later_value'])).toEqual([null, 'y']);
    expect(runs).toBe(1);
    await expect(outcome.facts(['source_value', 'no_such_fact'])).rejects.toThrow(UnknownFactError);
  });

  it('lists the plugins that ran in the order of the reads, each after what it read, whatever each awaits', async () => {
    // `slow` awaits many times before it answers, `quick` not at all: read first, slow is listed first.
    const slow = plugin('slow', ['slow_value'], ['source'], async (ctx) => {
      for (let i = 0; i < 5; i++) await Promise.resolve();
      return { slow_value: `${await ctx.fact('source_value')}s` };
    });
    const quick = plugin('quick', ['quick_value'], [], () => ({ quick_value: 'q' }));
    const { outcome } = await run([source, slow, quick], []);
    expect(await outcome.facts(['slow_value', 'quick_value'])).toEqual(['xs', 'q']);
    expect(outcome.pluginsRan).toEqual(['source', 'slow', 'quick']);
  });

  it('makes every fact of a plugin unknown when its run throws at once, not in a promise', async () => {
    const broken: Plugin = {
      ...plugin('broken', ['broken_value'], [], () => ({})),
      run: () => {
        throw new Error('broken plugin');
      },
    };
    const { values, errors } = await run([source, broken], ['broken_value']);
    expect(values).toEqual([null]);
    expect(errors.map(([id, e]) => [id, (e as Error).message])).toEqual([['broken', 'broken plugin']]);
  });

  it('records the I/O facts read one by one (ctx.fact, the engine), not those read in groups for a response', async () => {
    const io = (id: string, fact: string, value: string): Plugin => ({ ...plugin(id, [fact], [], () => ({ [fact]: value })), io: true });
    const reader = plugin('reader', ['read_value'], ['first', 'second'], async (ctx) => {
      const [a, b] = await Promise.all([ctx.fact('first_value'), ctx.fact('second_value')]);
      return { read_value: `${a}${b}` };
    });
    const { outcome, values } = await run(
      [io('first', 'first_value', 'a'), io('second', 'second_value', 'b'), io('third', 'third_value', 'c'), reader],
      ['read_value'],
    );
    expect(values).toEqual(['ab']);
    expect(await outcome.facts(['third_value'])).toEqual(['c']);
    expect(await outcome.recorded()).toEqual({ first_value: 'a', second_value: 'b' });
    expect(await outcome.fact('third_value')).toBe('c');
    expect(await outcome.recorded()).toEqual({ first_value: 'a', second_value: 'b', third_value: 'c' });
  });

  it('rejects a read of an unknown fact', async () => {
    const { outcome } = await run([source], []);
    await expect(outcome.fact('no_such_fact')).rejects.toThrow(UnknownFactError);
  });

  it('makes only the failing plugin unknown, and reports it', async () => {
    const broken = plugin('broken', ['broken_value'], [], () => {
      throw new Error('boom');
    });
    const { values, errors } = await run([source, broken], ['broken_value', 'source_value']);
    expect(values).toEqual([null, 'x']);
    expect(errors.map(([id, e]) => [id, (e as Error).message])).toEqual([['broken', 'boom']]);
  });
});

describe('the catalog checks the registry', () => {
  it.each<[string, Plugin[], string]>([
    ['an id registered twice', [source, source], 'plugin source is registered twice'],
    ['a fact emitted twice', [source, plugin('copy', ['source_value'], [], () => ({}))], 'fact source_value is emitted by both source and copy'],
    [
      'a check offered twice',
      [plugin('a', ['a_value'], [], () => ({}), ['same_check']), plugin('b', ['b_value'], [], () => ({}), ['same_check'])],
      'check same_check is offered by both a and b',
    ],
    ['a need not registered', [plugin('a', ['a_value'], ['missing'], () => ({}))], 'plugin a needs missing, which is not registered'],
    ['a plugin needing itself', [plugin('a', ['a_value'], ['a'], () => ({}))], 'plugin a names itself in needs'],
    ['network without io', [{ ...plugin('a', ['a_value'], [], () => ({})), network: true }], 'plugin a declares network but not io: a network lookup is I/O'],
    [
      'needs in a cycle',
      [plugin('a', ['a_value'], ['b'], () => ({})), plugin('b', ['b_value'], ['c'], () => ({})), plugin('c', ['c_value'], ['a'], () => ({}))],
      'plugins need each other in a cycle: a → b → c → a',
    ],
  ])('refuses %s', (_what, plugins, message) => {
    expect(() => new FactCatalog(plugins)).toThrow(new RegistryError(message));
  });

  it('accepts the real registry', () => {
    expect(new FactCatalog(registry).plugins.size).toBe(registry.length);
  });
});

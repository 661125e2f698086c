// The engine's outcomes remembered by the values it read (outcome-memo.ts): a request whose values were seen
// takes the remembered outcome, reads the same facts and lists the same plugins; one whose values differ where
// the engine looked, or that reads a value no key holds, gets the engine's own answer.
import { describe, expect, it } from 'vitest';
import { FactCatalog } from '../../src/engine/catalog.js';
import { noHistory } from '../../src/engine/no-history.js';
import type { FactValues, Plugin } from '../../src/engine/plugin.js';
import { PolicyRunner, type RunOutcome } from '../../src/engine/run.js';
import { OFFLINE } from '../../src/network/offline.js';
import { anyOfRule } from '../../src/policy/rules.js';

/** A plugin whose facts follow from the address: `kind` is its local part, `deep` is read only when kind is "a". */
function plugins(runs: string[]): Plugin[] {
  const plugin = (id: string, facts: Record<string, 'string' | 'array'>, run: (email: string) => FactValues, io = false): Plugin => ({
    id,
    description: id,
    steps: [],
    facts: Object.fromEntries(Object.entries(facts).map(([name, type]) => [name, { type, description: name }])),
    checks: {},
    needs: [],
    ...(io ? { io: true } : {}),
    run: async (ctx) => {
      runs.push(id);
      return run(ctx.input.email);
    },
  });
  return [
    plugin('kind', { kind: 'string' }, (email) => ({ kind: email.split('@')[0] })),
    plugin('deep', { deep: 'string' }, (email) => ({ deep: email.split('@')[1] }), true),
    plugin('list', { list: 'array' }, (email) => ({ list: [email] })),
  ];
}

function runner(runs: string[], withList = false): PolicyRunner {
  const catalog = new FactCatalog(plugins(runs));
  const priority = (fact: string) => (fact === 'deep' ? 1 : 50);
  const conditions = [
    {
      all: [
        { fact: 'kind', operator: 'equal' as const, value: 'a' },
        { fact: 'deep', operator: 'equal' as const, value: 'x.io' },
      ],
    },
    { fact: 'kind', operator: 'equal' as const, value: 'b' },
    ...(withList ? [{ fact: 'list', operator: 'contains' as const, value: 'a@x.io' }] : []),
  ];
  return new PolicyRunner(catalog, [anyOfRule('policy', conditions, priority)]);
}

const request = (email: string) => ({
  input: { email, ipv4: null, ipv6: null, softCheck: false, projectId: 'p', device: null },
  options: {},
  services: { velocity: noHistory, network: OFFLINE, now: () => 1 },
});

const seen = async (outcome: RunOutcome) => ({ fired: outcome.fired, ran: outcome.pluginsRan, recorded: await outcome.recorded() });

describe('outcomes remembered by the values the engine read', () => {
  it('answers a request whose values were seen as the engine did, reading the same facts', async () => {
    const runs: string[] = [];
    const rules = runner(runs);
    const first = await seen(await rules.run(request('a@x.io')));
    const again = await seen(await rules.run(request('a@x.io')));
    expect(first).toEqual({ fired: [{ name: 'policy', children: [true, false] }], ran: ['kind', 'deep'], recorded: { deep: 'x.io' } });
    expect(again).toEqual(first);
    // Under the same first key, a value the engine looked at differs: its own answer.
    expect(await seen(await rules.run(request('a@y.io')))).toEqual({ fired: [], ran: ['kind', 'deep'], recorded: { deep: 'y.io' } });
    expect(await seen(await rules.run(request('a@y.io')))).toEqual({ fired: [], ran: ['kind', 'deep'], recorded: { deep: 'y.io' } });
  });

  it('reads nothing more than the engine would for a key whose run read less', async () => {
    const runs: string[] = [];
    const rules = runner(runs);
    for (let i = 0; i < 2; i++) {
      runs.length = 0;
      const outcome = await seen(await rules.run(request('b@x.io')));
      expect(outcome).toEqual({ fired: [{ name: 'policy', children: [false, true] }], ran: ['kind'], recorded: {} });
      expect(runs).toEqual(['kind']);
    }
  });

  it('runs the engine when a value read is not a scalar', async () => {
    const runs: string[] = [];
    const rules = runner(runs, true);
    for (const email of ['a@x.io', 'c@x.io', 'c@x.io']) {
      const outcome = await rules.run(request(email));
      expect(outcome.fired.length).toBe(email === 'c@x.io' ? 0 : 1);
    }
  });
});

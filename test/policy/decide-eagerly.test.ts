// Deciding without the rule engine (policy replay's path) gives the engine's decision: every shipped policy,
// addresses that make its checks fire or not, offline and with network and history facts given.
import { describe, expect, it } from 'vitest';
import { registry } from '../../plugins/index.js';
import { FactCatalog } from '../../src/engine/catalog.js';
import { noHistory } from '../../src/engine/no-history.js';
import { OFFLINE } from '../../src/engine/run.js';
import { policiesDir } from '../../src/paths.js';
import { PolicyBook } from '../../src/policy/book.js';
import { decideEagerly } from '../../src/policy/decide-eagerly.js';
import { evaluate } from '../../src/policy/evaluate.js';

const book = PolicyBook.load(policiesDir, new FactCatalog(registry));

const ADDRESSES = [
  'jane.doe@example.com',
  'info@example.com',
  'bob@mailinator.com',
  'jane@gmial.com',
  'not-an-address',
  'a@b',
  'user@192.168.0.1',
  'x7f3k9q2z8@example.com',
  'first.last+tag@gmail.com',
  'ceo@company.co.uk',
  'pаypal@example.com',
  'student@mit.edu',
  `${'a'.repeat(70)}@example.com`,
  'user@sub.sub.sub.sub.example.com',
];

/** Network and history facts as a recorded event would carry them. */
const WORLDS: Array<Record<string, unknown>> = [
  {},
  { mx_record_status: 'invalid', mx_record_count: 0, a_record_fallback: 'invalid', has_null_mx: false, domain_age_signal: 'new_domain', domain_age_days: 3 },
  {
    mx_record_status: 'valid',
    mx_record_count: 2,
    a_record_fallback: 'not_needed',
    domain_age_signal: 'established',
    domain_age_days: 4000,
    has_website: true,
  },
  { distinct_emails_in_ip: 6, distinct_emails_in_ip_last_10_minutes: 6 },
];

describe.each(book.names().map((name) => [name]))('policy %s', (name) => {
  const policy = book.byName(name)!;
  const ioFacts = new Set([...policy.catalog.owner].filter(([, p]) => p.io).map(([fact]) => fact));

  it('decides every address in every world as the engine does', async () => {
    let compared = 0;
    const actions = new Set<string>();
    for (const world of WORLDS) {
      const given = (fact: string) => (ioFacts.has(fact) ? (world[fact] ?? null) : undefined);
      const services = { velocity: noHistory, network: OFFLINE, now: () => 1_700_000_000_000 };
      for (const [i, email] of ADDRESSES.entries()) {
        const input = { email, ipv4: i % 2 === 0 ? '198.51.100.7' : null, ipv6: null, device: null, softCheck: true, projectId: 'p' };
        const engine = (await evaluate(policy, input, services, { given })).decision;
        const eager = await decideEagerly(policy, input, services, { given });
        expect({ email, world, action: eager.action, errors: eager.errors, warnings: eager.warnings }).toEqual({
          email,
          world,
          action: engine.action,
          errors: engine.errors,
          warnings: engine.warnings,
        });
        actions.add(engine.action);
        compared += 1;
      }
    }
    expect(compared).toBe(ADDRESSES.length * WORLDS.length);
    // The cases are not all alike: each policy gives more than one action over them.
    expect(actions.size).toBeGreaterThanOrEqual(2);
  });
});

// What a verify response lists as checked (checked_types, steps) is read from the run's facts. After nearly
// every run those facts are at hand and are read without a wait; when one is not (the engine short-circuited
// past it), its plugin runs for the reading, as it always did. Both ways give the same lists.
import { describe, expect, it } from 'vitest';
import { registry } from '../../plugins/index.js';
import { FactCatalog } from '../../src/engine/catalog.js';
import { noHistory } from '../../src/engine/no-history.js';
import { evaluate } from '../../src/policy/evaluate.js';
import { loadPolicy } from '../../src/policy/load.js';

const catalog = new FactCatalog(registry);
const policy = loadPolicy(
  {
    name: 'short-circuit',
    file: 'short-circuit.yaml',
    text: `version: "1.0"
checks:
  local_numeric: { mode: soft, action: challenge }
  disposable_domain: { mode: hard }
rules:
  # The engine reads local_is_numeric first (a cheap fact); when it is false, velocity never runs in the run.
  - name: busy_numeric
    conditions: { all: [{ fact: distinct_emails_in_ip, operator: greaterThan, value: 1 }, { fact: local_is_numeric, operator: equal, value: true }] }
    action: block
`,
  },
  catalog,
);

const run = (email: string) =>
  evaluate(policy, { email, ipv4: null, ipv6: null, softCheck: false, projectId: 'p', device: null }, { velocity: noHistory, now: Date.now });

describe('checked types and steps', () => {
  it('are read without a wait when the run has every fact they read', async () => {
    const evaluation = await run('jane@mailinator.com');
    expect(evaluation.settledFact('is_disposable_domain')).toBe(true);
    expect(await evaluation.checkedTypes()).toEqual(['address_format', 'disposable_domain']);
  });

  it('run the plugin of a fact the run short-circuited past, and list the same', async () => {
    const evaluation = await run('jane@example.com');
    expect(evaluation.pluginsRan).not.toContain('velocity');
    expect(evaluation.settledFact('distinct_emails_in_ip')).toBeUndefined();
    // The rule reads distinct_emails_in_ip (unknown without an IP), then local_is_numeric (known): it ran.
    expect(await evaluation.steps()).toContain('rule_busy_numeric');
    expect(evaluation.pluginsRan).toContain('velocity');
    expect(evaluation.settledFact('distinct_emails_in_ip')).toBeNull();
  });
});

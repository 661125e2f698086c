// What a verify response lists as checked (checked_types, steps) is read from the run's facts: those the rules
// read, and, for a check the engine short-circuited past, its facts read for the listing (its plugin runs then).
import { describe, expect, it } from 'vitest';
import { registry } from '../../plugins/index.js';
import { FactCatalog } from '../../src/engine/catalog.js';
import { noHistory } from '../../src/engine/no-history.js';
import { OFFLINE } from '../../src/network/offline.js';
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
    error: busy_numeric_sign_up
`,
  },
  catalog,
);

const run = (email: string) =>
  evaluate(policy, { email, ipv4: null, ipv6: null, softCheck: false, projectId: 'p', device: null }, { velocity: noHistory, network: OFFLINE, now: Date.now });

describe('checked types and steps', () => {
  it('list the checks whose facts the run read', async () => {
    const evaluation = await run('jane@mailinator.com');
    expect(evaluation.pluginsRan).toContain('disposable');
    expect(await evaluation.checkedTypes()).toEqual(['address_format', 'disposable_domain']);
  });

  it('run the plugin of a fact the run short-circuited past, and list the same', async () => {
    const evaluation = await run('jane@example.com');
    expect(evaluation.pluginsRan).not.toContain('velocity');
    // The rule reads distinct_emails_in_ip (unknown without an IP), then local_is_numeric (known): it ran.
    expect(await evaluation.steps()).toContain('rule_busy_numeric');
    expect(evaluation.pluginsRan).toContain('velocity');
    expect(await evaluation.fact('distinct_emails_in_ip')).toBeNull();
  });
});

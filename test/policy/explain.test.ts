// The explanation agrees with the decision it explains: every enabled check and free rule once, in
// policy order (the engine rule groups checks by plugin), `fired` exactly for what decide() fired, and
// the on_unknown of a check folded into its entry.
import { describe, expect, it } from 'vitest';
import { registry } from '../../plugins/index.js';
import { FactCatalog } from '../../src/engine/catalog.js';
import { noHistory } from '../../src/engine/no-history.js';
import { OFFLINE } from '../../src/network/offline.js';
import { evaluate } from '../../src/policy/evaluate.js';
import { checkPolicy, loadPolicy } from '../../src/policy/load.js';

const catalog = new FactCatalog(registry);
const shipped = loadPolicy({ name: 'default', file: new URL('../../policies/default.yaml', import.meta.url).pathname }, catalog);

// Checks of different plugins interleaved, so the engine's plugin grouping differs from policy order.
const INTERLEAVED = loadPolicy(
  {
    name: 'interleaved',
    file: 'interleaved.yaml',
    text: `version: "1.0"
checks:
  local_plus: { mode: soft, action: warn }
  disposable_domain: { mode: hard }
  local_numeric: { mode: soft, action: challenge, on_unknown: block }
rules:
  - name: gmail_plus
    conditions: { all: [{ fact: has_plus_addressing, operator: equal, value: true }, { fact: domain, operator: equal, value: gmail.com }] }
    action: challenge
    warning: gmail_plus_address
`,
  },
  catalog,
);

const DEFAULT_RULES = (
  checkPolicy({ name: 'default', file: new URL('../../policies/default.yaml', import.meta.url).pathname }, catalog).document.rules ?? []
).map((r) => r.name);

const explain = async (policy: typeof shipped, email: string) => {
  const evaluation = await evaluate(
    policy,
    { email, ipv4: null, ipv6: null, softCheck: true, projectId: 'p', device: null },
    { velocity: noHistory, network: OFFLINE, now: Date.now },
    { explain: true },
  );
  return { decision: evaluation.decision, explanation: evaluation.explanation };
};

describe('explain agrees with decide', () => {
  it.each([
    ['default', 'jane@mailinator.com'],
    ['default', 'jane.doe+news@gmail.com'],
    ['default', 'not an address'],
    ['default', '12345@example.com'],
    ['interleaved', 'jane+x@gmail.com'],
    ['interleaved', '12345@mailinator.com'],
    ['interleaved', ''],
  ])('%s policy, %j', async (name, email) => {
    const policy = name === 'default' ? shipped : INTERLEAVED;
    const { decision, explanation } = await explain(policy, email);
    expect(explanation?.action).toBe(decision.action);
    const entries = explanation?.entries ?? [];
    const names = [...policy.checks.map((c) => c.name), ...(name === 'interleaved' ? ['gmail_plus'] : DEFAULT_RULES)];
    expect(entries.map((e) => e.name)).toEqual(names);
    const fired = decision.fired.filter((v) => v.source !== 'unknown').map((v) => v.name);
    expect(entries.filter((e) => e.fired).map((e) => e.name)).toEqual(fired);
    const unknownFired = decision.fired.filter((v) => v.source === 'unknown').map((v) => v.name);
    expect(entries.filter((e) => e.on_unknown?.fired).map((e) => e.name)).toEqual(unknownFired);
    expect(explanation?.contributions.map((c) => c.action)).toEqual(decision.fired.map((v) => v.action));
  });

  it('shows both the plus rule and the check that fired on a gmail plus address, and what the winner outranks', async () => {
    const { explanation } = await explain(INTERLEAVED, 'jane+x@gmail.com');
    expect(explanation).toMatchObject({
      action: 'challenge',
      decided_by: 'severity',
      contributions: [
        { name: 'local_plus', action: 'warn' },
        { name: 'gmail_plus', action: 'challenge' },
      ],
    });
    expect(explanation?.why).toContain('from gmail_plus; it outranks local_plus (warn)');
  });
});

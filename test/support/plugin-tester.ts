// Our PluginTester: a plugin's test is a table of inputs and the exact facts expected,
// run through the real runner (json-rules-engine dynamic facts), with the plugin's needs.
import { describe, expect, it } from 'vitest';
import { registry } from '../../plugins/index.js';
import type { CheckOptions, FactValues, NetworkAccess, Plugin, VelocityReader } from '../../src/engine/plugin.js';
import { FactCatalog, PolicyRunner } from '../../src/engine/run.js';
import { compilePolicy } from '../../src/policy/compile.js';
import { type Decision, decide } from '../../src/policy/decide.js';
import { parsePolicy } from '../../src/policy/load.js';

export interface PluginCase {
  /** Optional label; defaults to the email. */
  name?: string;
  email: string;
  ipv4?: string | null;
  ipv6?: string | null;
  /** Options per check name. */
  options?: Record<string, CheckOptions>;
  /** Facts expected: each listed fact must equal exactly (toEqual); unlisted facts are not checked. */
  facts: FactValues;
}

export interface TesterOptions {
  velocity?: VelocityReader;
  now?: () => number;
  /** The outside world for the plugin (services.network); offline when absent. */
  network?: NetworkAccess;
}

const noVelocity: VelocityReader = {
  byIp: async () => ({ emails: [], distinctEmails: 0, total: 0, since: [] }),
};

/** Computes every fact of `plugin` for one input through the real runner. */
export async function computeFacts(plugin: Plugin, c: Omit<PluginCase, 'facts'>, opts: TesterOptions = {}): Promise<FactValues> {
  const runner = new PolicyRunner(new FactCatalog(registry), []);
  const errors: unknown[] = [];
  const outcome = await runner.run({
    input: { email: c.email, ipv4: c.ipv4 ?? null, ipv6: c.ipv6 ?? null, softCheck: false, projectId: 'test-project' },
    options: mergeDefaults(plugin, c.options ?? {}),
    services: { velocity: opts.velocity ?? noVelocity, network: opts.network, now: opts.now ?? Date.now, onPluginError: (_id, e) => errors.push(e) },
  });
  const facts: FactValues = {};
  for (const name of Object.keys(plugin.facts)) facts[name] = await outcome.fact(name);
  if (errors.length > 0) throw errors[0];
  return facts;
}

function mergeDefaults(plugin: Plugin, options: Record<string, CheckOptions>): Record<string, CheckOptions> {
  const merged: Record<string, CheckOptions> = {};
  for (const [name, check] of Object.entries(plugin.checks)) merged[name] = { ...check.defaults, ...options[name] };
  return merged;
}

/** Declares one vitest case per row; refuses duplicate rows as ESLint's RuleTester does. */
export function testPlugin(plugin: Plugin, cases: PluginCase[], opts: TesterOptions = {}): void {
  const seen = new Set<string>();
  describe(`plugin ${plugin.id}`, () => {
    for (const c of cases) {
      const key = JSON.stringify([c.email, c.ipv4, c.ipv6, c.options]);
      if (seen.has(key)) throw new Error(`duplicate case in ${plugin.id}: ${c.name ?? c.email}`);
      seen.add(key);
      it(c.name ?? JSON.stringify(c.email), async () => {
        for (const fact of Object.keys(c.facts)) {
          expect(Object.keys(plugin.facts), `${fact} is not a declared fact of ${plugin.id}`).toContain(fact);
        }
        const facts = await computeFacts(plugin, c, opts);
        const picked = Object.fromEntries(Object.keys(c.facts).map((k) => [k, facts[k]]));
        expect(picked).toEqual(c.facts);
      });
    }
  });
}

/**
 * Codes of a plugin's checks that fire for `email`, sorted: every check of the plugin enabled in hard
 * mode (with `options` per check), compiled by the real policy compiler and decided by `decide`.
 */
export async function firedCodes(plugin: Plugin, email: string, options: Record<string, CheckOptions> = {}, opts: TesterOptions = {}): Promise<string[]> {
  const checks = Object.fromEntries(Object.keys(plugin.checks).map((name) => [name, { mode: 'hard', ...(options[name] ? { options: options[name] } : {}) }]));
  return (await decisionFor(checks, email, opts)).errors.sort();
}

/**
 * The decision of a policy made of `checks` (the policy's `checks:` section) for `email`, through the
 * real compiler, runner and decide; `default_action` is allow. Throws PolicyError for a bad policy.
 */
export async function decisionFor(checks: Record<string, unknown>, email: string, opts: TesterOptions = {}): Promise<Decision> {
  const policy = compilePolicy(
    'test-checks',
    parsePolicy('test-checks.json', JSON.stringify({ version: '1', default_action: 'allow', checks })),
    new FactCatalog(registry),
  );
  const outcome = await policy.runner.run({
    input: { email, ipv4: null, ipv6: null, softCheck: false, projectId: 'test-project' },
    options: policy.options,
    services: { velocity: opts.velocity ?? noVelocity, network: opts.network, now: opts.now ?? Date.now },
  });
  return decide(policy, outcome.ruleResults);
}

// Our PluginTester (ESLint's RuleTester, for checks): a plugin's test is a table of inputs, the facts
// expected and the checks that fire. Each row runs through the real compiler and the same evaluation the
// services use: a policy enabling every check of the plugin in hard mode, with the row's options. The
// plugin need not be registered yet: the tester registers it (register(), as plugins/index.ts does) with
// the real registry for its own engine and policies.
import { describe, expect, it } from 'vitest';
import { getCurrentSuite } from 'vitest/suite';
import { registry } from '../../plugins/index.js';
import { register } from '../../plugins/register.js';
import { FactCatalog } from '../../src/engine/catalog.js';
import { noHistory } from '../../src/engine/no-history.js';
import type {
  CheckOptions,
  FactValues,
  FingerprintInput,
  NetworkAccess,
  Plugin,
  ProjectListReader,
  ReputationReader,
  RequestInput,
  VelocityReader,
} from '../../src/engine/plugin.js';
import type { RunServices } from '../../src/engine/run.js';
import { OFFLINE } from '../../src/network/offline.js';
import type { CompiledPolicy } from '../../src/policy/compile.js';
import type { VerdictDecision } from '../../src/policy/compile-verdict.js';
import type { Decision } from '../../src/policy/decide.js';
import { type Evaluation, evaluate, evaluateVerdict } from '../../src/policy/evaluate.js';
import { loadPolicy } from '../../src/policy/load.js';
import type { DomainAnswers } from '../../src/policy/types.js';
import { validatorFor } from '../../src/schemas.js';
import { networkFromAnswers } from '../../src/service/policy-test-fixtures.js';

export interface PluginCase {
  /** Optional label; defaults to the email. */
  name?: string;
  email: string;
  ipv4?: string | null;
  ipv6?: string | null;
  /** Device hash, as a fingerprint gives it. */
  device?: string | null;
  /** The opened fingerprint token, as the service hands it to plugins. */
  fingerprint?: FingerprintInput | null;
  /** Options per check name. */
  options?: Record<string, CheckOptions>;
  /** Facts expected: each listed fact must equal exactly (toEqual); unlisted facts are not checked. */
  facts: FactValues;
  /**
   * The plugin's checks that fire, every one of them enabled (hard mode, the row's options); `[]` when
   * none. Required for a plugin with checks, refused for one without, as RuleTester requires `errors`;
   * every check must fire in some row of the file.
   */
  fires?: string[];
}

export interface TesterOptions {
  velocity?: VelocityReader;
  /** The project's labels: a real store's reader (store.labels.reputationReader), or none. */
  reputation?: ReputationReader;
  now?: () => number;
  /** The outside world: a NetworkAccess, or answers per domain as a policy test declares them; offline when absent. */
  network?: NetworkAccess | Readonly<Record<string, DomainAnswers>>;
  /** The registry to run against (default: the real one, with the plugin under test registered in it). */
  catalog?: FactCatalog;
  /** The project's own lists (`email-trust project lists`), by list name; none when absent. */
  lists?: Readonly<Record<string, readonly string[]>>;
}

/** A project's lists as the store hands them to plugins. */
export function listReader(lists: Readonly<Record<string, readonly string[]>>): ProjectListReader {
  const sets = new Map(Object.entries(lists).map(([name, entries]) => [name, new Set(entries)]));
  return { entries: async (list) => sets.get(list) ?? new Set() };
}

const realCatalog = new FactCatalog(registry);
const catalogs = new WeakMap<Plugin, FactCatalog>();

/**
 * The real registry with `plugin` registered in it (in place of a registered plugin of the same id): its words
 * are checked as plugins/index.ts checks them, so a plugin can be tested before its line is added there.
 */
export function catalogWith(plugin: Plugin): FactCatalog {
  if (registry.includes(plugin)) return realCatalog;
  let catalog = catalogs.get(plugin);
  if (!catalog) {
    const others = registry.filter((p) => p.id !== plugin.id);
    catalog = new FactCatalog(register([...others, plugin].sort((a, b) => a.id.localeCompare(b.id))));
    catalogs.set(plugin, catalog);
  }
  return catalog;
}

/**
 * A policy of `checks` (a policy's `checks:` section), through the real loader and compiler; default_action allow.
 * A check no plugin of `catalog` offers is the test's mistake, not the policy's: the error says so.
 */
export function checksPolicy(checks: Record<string, unknown>, catalog: FactCatalog = realCatalog): CompiledPolicy {
  const unregistered = Object.keys(checks).filter((name) => !catalog.checkOwner.has(name));
  if (unregistered.length > 0) {
    throw new Error(
      `check ${unregistered.join(', ')} is not registered: no plugin of the tester's registry offers it. Test the plugin with testPlugin(plugin, …) or runCase(plugin, …), which register it, pass { catalog: catalogWith(plugin) }, or add its line to plugins/index.ts`,
    );
  }
  const text = JSON.stringify({ version: '1', default_action: 'allow', checks });
  return loadPolicy({ name: 'test-checks', file: 'test-checks.json', text }, catalog);
}

/** Runs a compiled policy on one input as the services do; a plugin error fails the run. */
export async function evaluateFor(
  policy: CompiledPolicy,
  input: Partial<RequestInput> & { email: string },
  opts: TesterOptions = {},
): Promise<Evaluation<Decision>> {
  return failOnPluginError((services) => evaluate(policy, requestInput(input), services), opts);
}

/** Runs a compiled policy's intelligence verdict (its `intelligence:` section) on one input as POST /v1/intelligence does. */
export async function evaluateVerdictFor(
  policy: CompiledPolicy,
  input: Partial<RequestInput> & { email: string },
  opts: TesterOptions = {},
): Promise<Evaluation<VerdictDecision>> {
  return failOnPluginError((services) => evaluateVerdict(policy, policy.verdict, requestInput(input), services), opts);
}

function requestInput(input: Partial<RequestInput> & { email: string }): RequestInput {
  return { ipv4: null, ipv6: null, device: null, softCheck: false, projectId: 'test-project', ...input };
}

async function failOnPluginError<D>(run: (services: RunServices) => Promise<Evaluation<D>>, opts: TesterOptions): Promise<Evaluation<D>> {
  const errors: unknown[] = [];
  const network =
    opts.network && !('enabled' in opts.network)
      ? networkFromAnswers(opts.network as Record<string, DomainAnswers>, opts.now)
      : ((opts.network as NetworkAccess | undefined) ?? OFFLINE);
  const evaluation = await run({
    velocity: opts.velocity ?? noHistory,
    ...(opts.reputation ? { reputation: opts.reputation } : {}),
    network,
    ...(opts.lists ? { lists: listReader(opts.lists) } : {}),
    now: opts.now ?? Date.now,
    onPluginError: (_id, error) => errors.push(error),
  });
  const values = new Map<string, unknown>();
  const fact = async (name: string) => {
    if (!values.has(name)) values.set(name, await evaluation.fact(name));
    if (errors.length > 0) throw errors[0];
    return values.get(name);
  };
  if (errors.length > 0) throw errors[0];
  // The plugin lists are getters on the evaluation's prototype, which a spread does not copy.
  return { ...evaluation, pluginsRan: evaluation.pluginsRan, pluginsApplied: evaluation.pluginsApplied, fact };
}

/** The decision of a policy made of `checks` for `email`. Throws PolicyError for a bad policy. */
export async function decisionFor(checks: Record<string, unknown>, email: string, opts: TesterOptions = {}): Promise<Decision> {
  return (await evaluateFor(checksPolicy(checks, opts.catalog), { email }, opts)).decision;
}

/**
 * Every check of `plugin` enabled in hard mode, with `options` per check. A check whose options are required
 * (allowed-domains' `domains`) and not given by the row is left out: it cannot be enabled without them.
 */
function everyCheckOf(plugin: Plugin, options: Record<string, CheckOptions> = {}): Record<string, unknown> {
  const enabled = Object.entries(plugin.checks).filter(([name, spec]) => options[name] || !spec.options || validatorFor(spec.options)({ ...spec.defaults }));
  return Object.fromEntries(enabled.map(([name]) => [name, { mode: 'hard', ...(options[name] ? { options: options[name] } : {}) }]));
}

/** The facts of `plugin` and the checks that fire for one row. */
export async function runCase(
  plugin: Plugin,
  c: Omit<PluginCase, 'facts' | 'fires'>,
  opts: TesterOptions = {},
): Promise<{ facts: FactValues; fires: string[] }> {
  const policy = checksPolicy(everyCheckOf(plugin, c.options), opts.catalog ?? catalogWith(plugin));
  const input = { email: c.email, ipv4: c.ipv4 ?? null, ipv6: c.ipv6 ?? null, device: c.device ?? null, fingerprint: c.fingerprint ?? null };
  const evaluation = await evaluateFor(policy, input, opts);
  const facts: FactValues = {};
  for (const name of Object.keys(plugin.facts)) facts[name] = await evaluation.fact(name);
  const fires = evaluation.decision.fired.filter((v) => v.source === 'check').map((v) => v.name);
  return { facts, fires: fires.sort() };
}

/** The facts of `plugin` for one input, through the real runner. */
export async function computeFacts(plugin: Plugin, c: Omit<PluginCase, 'facts' | 'fires'>, opts: TesterOptions = {}): Promise<FactValues> {
  return (await runCase(plugin, c, opts)).facts;
}

/**
 * Per test file and plugin, the checks the rows of that file say fire. Keyed by the file too: with
 * `isolate: false` (vitest.config.ts) this module outlives a file, and a second file testing the same plugin
 * in one worker would otherwise declare no check of its own (and add its rows to the first file's).
 */
const firedInRows = new Map<string, Set<string>>();

/**
 * Declares one vitest case per row; refuses duplicate rows, and for a plugin with checks, rows that do
 * not say what fires and a table (all the calls in one file) in which some check never fires.
 */
export function testPlugin(plugin: Plugin, cases: PluginCase[], opts: TesterOptions = {}): void {
  const hasChecks = Object.keys(plugin.checks).length > 0;
  const seen = new Set<string>();
  const key = `${getCurrentSuite().file?.filepath ?? ''}\u0000${plugin.id}`;
  let fired = firedInRows.get(key);
  if (!fired && hasChecks) {
    fired = new Set();
    firedInRows.set(key, fired);
    const all = fired;
    // Runs after every row of the file is declared, so it sees every call's rows.
    it(`plugin ${plugin.id}: every check fires in some row`, () => expect([...all].sort()).toEqual(Object.keys(plugin.checks).sort()));
  }
  for (const check of cases.flatMap((c) => c.fires ?? [])) fired?.add(check);
  describe(`plugin ${plugin.id}`, () => {
    for (const c of cases) {
      const label = c.name ?? JSON.stringify(c.email);
      const key = JSON.stringify([c.email, c.ipv4, c.ipv6, c.device, c.fingerprint, c.options]);
      if (seen.has(key)) throw new Error(`duplicate case in ${plugin.id}: ${label}`);
      seen.add(key);
      if (hasChecks && c.fires === undefined) throw new Error(`${plugin.id}: case ${label} must say which checks fire (fires: [] when none)`);
      if (!hasChecks && c.fires !== undefined) throw new Error(`${plugin.id} has no checks: case ${label} cannot say what fires`);
      it(label, async () => {
        for (const fact of Object.keys(c.facts)) expect(Object.keys(plugin.facts), `${fact} is not a declared fact of ${plugin.id}`).toContain(fact);
        for (const check of c.fires ?? []) expect(Object.keys(plugin.checks), `${check} is not a check of ${plugin.id}`).toContain(check);
        const actual = await runCase(plugin, c, opts);
        const picked = Object.fromEntries(Object.keys(c.facts).map((k) => [k, actual.facts[k]]));
        expect(picked).toEqual(c.facts);
        expect(actual.fires).toEqual([...(c.fires ?? [])].sort());
      });
    }
  });
}

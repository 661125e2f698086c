// The per-request runner: every fact of every plugin is answered by the run's almanac, which asks the
// request's state. A plugin runs the first time one of its facts is asked for, once per request, so a
// request pays only for the checks its rules or its caller ask about. This module and src/policy are the
// only ones that know json-rules-engine; what leaves here is plain data (the rules that fired, the plugins
// that ran).
//
// Cost: an engine is built once per rule set and reused (pooled); nothing is registered on it per request.
// Facts are not registered on the engine at all (it would add every one to each run's almanac): the
// almanac below resolves them, and the compiler gives each condition the priority its fact would have had.
import { Almanac, Engine, type RuleProperties, type RuleResult } from 'json-rules-engine';
import { checkDuration, secondsSince } from '../metrics.js';
import type { FactCatalog } from './catalog.js';
import {
  type CheckOptions,
  type FactValues,
  isThenable,
  type NetworkAccess,
  type Plugin,
  type PluginContext,
  type ProjectListReader,
  type RequestInput,
  type VelocityReader,
} from './plugin.js';
import './condition-evaluation.js';
import { branchOf, type MemoBranch, type MemoNode, type MemoRead, MemoTree, valuesKey } from './memo.js';
import { NOT_YET, type NowAlmanac, runRules } from './rule-evaluation.js';
import { keepResultsInPlace } from './rule-results.js';

const offline = { status: 'error', reason: 'network checks are off' } as const;
const unknown = { status: 'unknown', reason: 'network checks are off' } as const;
/** No network: every lookup answers "unknown" at once. */
export const OFFLINE: NetworkAccess = {
  enabled: false,
  dns: { mx: async () => offline, a: async () => offline, aaaa: async () => offline },
  registration: { registered: async () => unknown },
  website: { hasWebsite: async () => unknown },
};

const EMPTY_LIST: ReadonlySet<string> = new Set();
/** A project with no lists of its own. */
export const NO_PROJECT_LISTS: ProjectListReader = { entries: () => EMPTY_LIST };

const same = <T>(value: T): T => value;

/** What RequestRun.settle is given as the start of a run answered from a memo tree (no clock read). */
const REMEMBERED = -1;

/** `then` of a value at hand, as a promise: rejected when `then` throws, as in a reaction. */
function settledThen<T>(then: (value: unknown) => T, value: unknown): Promise<T> {
  try {
    return Promise.resolve(then(value));
  } catch (error) {
    return Promise.reject(error);
  }
}

/** Condition priorities (higher first within an `all`/`any`): a cheap fact decides before a fact that needs I/O. */
export const CHEAP_FACT_PRIORITY = 50;
export const IO_FACT_PRIORITY = 1;

/** The priority of conditions on `fact`: the compiler sets it on each condition (see rules.ts). */
export function factPriority(catalog: FactCatalog, fact: string): number {
  return catalog.owner.get(fact)?.io ? IO_FACT_PRIORITY : CHEAP_FACT_PRIORITY;
}

export interface RunServices {
  velocity: VelocityReader;
  /** The outside world for this request (DNS, RDAP, web); offline when absent. */
  network?: NetworkAccess;
  /** The project's own domain lists; none when absent. */
  lists?: ProjectListReader;
  now(): number;
  /** Told when a plugin throws; its facts are then null (unknown). */
  onPluginError?(pluginId: string, error: unknown): void;
}

export interface RunRequest {
  input: RequestInput;
  /** Options per check name, already validated and merged over the check's defaults. */
  options: Readonly<Record<string, CheckOptions>>;
  services: RunServices;
  /** Stops evaluating lower-priority rules once a rule of this name has fired. */
  halts?(ruleName: string): boolean;
  /** Keep every rule's condition results (RunOutcome.conditions), for an explanation; off by default (it costs a copy). */
  explain?: boolean;
  /**
   * Facts given rather than computed (a replay's recorded facts): a fact it answers (anything but undefined)
   * is taken as is and its plugin is not run for it.
   */
  given?(name: string): unknown;
  /** Observe each plugin's duration for GET /metrics (default); a replay of a million events skips it. */
  timed?: boolean;
}

/** A condition as a run saw it: plain data, `result` absent when the engine did not evaluate it (short-circuit). */
export type ConditionOutcome =
  | { fact: string; operator: string; value: unknown; result?: boolean; factResult?: unknown }
  | { all: ConditionOutcome[]; result?: boolean }
  | { any: ConditionOutcome[]; result?: boolean }
  | { not: ConditionOutcome; result?: boolean };

/** A rule of the run, fired or not, with its conditions' results (only when RunRequest.explain). */
export interface RuleOutcome {
  name: string;
  fired: boolean;
  conditions: ConditionOutcome;
}

/** A rule that fired, and which children of its top-level `any`/`all` held. */
export interface FiredRule {
  name: string;
  children: readonly boolean[];
}

export interface RunOutcome {
  /** The rules that fired, in the order the engine settled them. */
  fired: FiredRule[];
  /** Plugin ids in the order they finished running. */
  pluginsRan: readonly string[];
  /**
   * Those of pluginsRan that applied to the request: at least one of their facts is known (neither null
   * nor one of its unknownValues). A plugin with nothing to check (no IP, network checks off, every lookup
   * failed, or it threw) ran but did not apply: it is "not checked", not "checked and clean".
   */
  pluginsApplied: readonly string[];
  /** Value of any registered fact for this request (runs its plugin if it has not run yet); null when unknown. */
  fact(name: string): Promise<unknown>;
  /** The values of several facts, in order: one wait for their plugins, not a promise per fact. */
  facts(names: readonly string[]): Promise<unknown[]>;
  /**
   * The same values without a wait when every one is at hand (given, or its plugin settled); null otherwise
   * (then ask facts()). Like facts(), not counted among the facts the decision stood on (recorded()).
   */
  settledFacts(names: readonly string[]): unknown[] | null;
  /**
   * As facts() without a wait: runs the plugins behind the names that have not run, and gives the values when
   * every one is then at hand (those plugins answered at once); null otherwise (then ask facts(), which waits
   * for the same plugins).
   */
  factsNow(names: readonly string[]): unknown[] | null;
  /** One fact's value when at hand, as settledFacts; undefined when its plugin has yet to run or settle. */
  settledFact(name: string): unknown;
  /** With RunRequest.explain: every rule evaluated (fired or not) with its conditions' results. */
  rules?: RuleOutcome[];
  /**
   * The facts of I/O plugins (network, history) that the rules or other plugins read in this run, with their
   * values: what a replay cannot compute again offline, so it is stored with the event.
   */
  recorded(): Promise<Record<string, unknown>>;
}

export class UnknownFactError extends Error {
  override name = 'UnknownFactError';
}

/** A plugin read a fact it may not: not emitted by a plugin it names in `needs`. */
export class UndeclaredNeedError extends Error {
  override name = 'UndeclaredNeedError';
}

/** One request's state: what ran, and each plugin's facts (computed once, shared by every reader). */
class RequestRun {
  readonly ran: string[] = [];
  readonly applied: string[] = [];
  /** By plugin number (catalog.pluginIndex): its run, once started. */
  private readonly values: Array<Promise<FactValues> | undefined>;
  /** By plugin number: its facts once its run has settled, read without a wait. */
  private readonly settled: Array<FactValues | undefined>;
  /**
   * By fact number (catalog.factIndex): whether it was asked for one by one: the engine reads a fact once per
   * condition naming it, a plugin through ctx.fact or ctx.facts. A caller's reads in groups (factsOf:
   * show_results, checked types) go around it, so its I/O facts are those the decision stood on (recorded()).
   */
  private readonly read: boolean[];
  /**
   * By fact number: its value read one by one through fact(), shared by every later such read. Made at the first
   * such read: the rule walk and the group reads never make one (a 1 KB array less per request).
   */
  private promised: Array<Promise<unknown> | undefined> | undefined;
  /** The keys of the groups of facts walked in memo trees (see walk), by the group's array. */
  private groupKeys: Map<readonly string[], string> | undefined;

  constructor(
    readonly request: RunRequest,
    private readonly catalog: FactCatalog,
  ) {
    // Sized once: filled at scattered numbers, a growing array would be copied several times per request.
    const plugins = catalog.pluginIndex.size;
    const facts = catalog.factNames.length;
    this.values = new Array(plugins);
    this.settled = new Array(plugins);
    // Filled, not holey; not a typed array (past 64 bytes its store is malloc'ed outside the heap, per request).
    this.read = new Array<boolean>(facts).fill(false);
  }

  /** The value of `name`; null when its plugin gave none. */
  fact(name: string): Promise<unknown> {
    const i = this.catalog.factIndex.get(name);
    if (i === undefined) return Promise.reject(new UnknownFactError(`unknown fact ${name}`));
    this.promised ??= new Array(this.catalog.factNames.length);
    let value = this.promised[i];
    if (!value) {
      value = this.factThen(name, same);
      this.promised[i] = value;
    }
    return value;
  }

  /**
   * `then` of the value of `name`, in one promise rather than the fact's and a reaction's (the engine's
   * conditions: the fact and its comparison in one step); `then` throwing rejects it.
   */
  factThen<T>(name: string, then: (value: unknown) => T): Promise<T> {
    const i = this.catalog.factIndex.get(name);
    if (i === undefined) return Promise.reject(new UnknownFactError(`unknown fact ${name}`));
    this.read[i] = true;
    const promised = this.promised?.[i];
    if (promised) return promised.then(then);
    const given = this.request.given?.(name);
    if (given !== undefined) return settledThen(then, given);
    const settled = this.settled[this.catalog.factOwnerIndex[i] as number];
    if (settled) return settledThen(then, settled[name] ?? null);
    return this.valuesOf(this.catalog.factOwners[i] as Plugin).then((values) => then(values[name] ?? null));
  }

  /**
   * The value of `name` without a wait when at hand: given, or its plugin settled, or run now and settled at
   * once (a plugin whose run() answers without a promise); otherwise NOT_YET, with its plugin's run added to
   * `waits`. Read one by one, as factThen (rule-evaluation.ts walks the engine's conditions with it).
   */
  factNow(name: string, waits: Set<Promise<unknown>>): unknown {
    const i = this.catalog.factIndex.get(name);
    if (i === undefined) throw new UnknownFactError(`unknown fact ${name}`);
    this.read[i] = true;
    const given = this.request.given?.(name);
    if (given !== undefined) return given;
    const owner = this.catalog.factOwnerIndex[i] as number;
    let settled = this.settled[owner];
    if (!settled) {
      this.start(this.catalog.factOwners[i] as Plugin, owner);
      settled = this.settled[owner];
      if (!settled) {
        waits.add(this.values[owner] as Promise<FactValues>);
        return NOT_YET;
      }
    }
    return settled[name] ?? null;
  }

  /** Several values at once, not counted as read one by one (see `read`). */
  factsOf(names: readonly string[]): Promise<unknown[]> {
    return this.gather(names, false);
  }

  /**
   * Several values with one wait for the plugins behind them (none when they have settled); `counted`: as
   * read one by one (a plugin's ctx.facts).
   */
  private gather(names: readonly string[], counted: boolean): Promise<unknown[]> {
    const { factIndex, factOwners, factOwnerIndex } = this.catalog;
    const given = this.request.given;
    let waits: Array<Promise<FactValues>> | undefined;
    for (const name of names) {
      const i = factIndex.get(name);
      if (i === undefined) return Promise.reject(new UnknownFactError(`unknown fact ${name}`));
      if (counted) this.read[i] = true;
      if (this.settled[factOwnerIndex[i] as number] || given?.(name) !== undefined) continue;
      const run = this.valuesOf(factOwners[i] as Plugin);
      if (!waits) waits = [run];
      else if (!waits.includes(run)) waits.push(run);
    }
    const values = () =>
      names.map((name) => {
        const value = given?.(name);
        if (value !== undefined) return value;
        return (this.settled[factOwnerIndex[factIndex.get(name) as number] as number] as FactValues)[name] ?? null;
      });
    return waits ? Promise.all(waits).then(values) : Promise.resolve(values());
  }

  /** See RunOutcome.factsNow: not counted as read one by one, as factsOf. */
  factsNow(names: readonly string[]): unknown[] | null {
    return this.gatherNow(names, false);
  }

  /**
   * Several values without a wait when every one is at hand, starting the plugins behind them that have not
   * run (each of which may settle at once, see start); null when one has not settled (every one started,
   * as gather starts them). `counted` as in gather.
   */
  private gatherNow(names: readonly string[], counted: boolean): unknown[] | null {
    const { factIndex, factOwners, factOwnerIndex } = this.catalog;
    const group = this.catalog.groupOf(names);
    const given = this.request.given;
    const values: unknown[] = new Array(names.length);
    let atHand = true;
    for (let k = 0; k < names.length; k++) {
      const name = names[k] as string;
      const i = group ? (group.facts[k] as number) : factIndex.get(name);
      if (i === undefined) throw new UnknownFactError(`unknown fact ${name}`);
      if (counted) this.read[i] = true;
      const value = given?.(name);
      if (value !== undefined) {
        values[k] = value;
        continue;
      }
      const owner = group ? (group.owners[k] as number) : (factOwnerIndex[i] as number);
      if (!this.settled[owner]) this.start(factOwners[i] as Plugin, owner);
      const settled = this.settled[owner];
      if (settled) values[k] = settled[name] ?? null;
      else atHand = false;
    }
    return atHand ? values : null;
  }

  /** The value of `name` when at hand (given, or its plugin settled), read without a wait and like factsOf; undefined when not yet. */
  settledFact(name: string): unknown {
    const i = this.catalog.factIndex.get(name);
    if (i === undefined) throw new UnknownFactError(`unknown fact ${name}`);
    const given = this.request.given?.(name);
    if (given !== undefined) return given;
    const settled = this.settled[this.catalog.factOwnerIndex[i] as number];
    return settled ? (settled[name] ?? null) : undefined;
  }

  /** The values of `names` when every one is at hand (see settledFact); null when some plugin has yet to run or settle. */
  settledFacts(names: readonly string[]): unknown[] | null {
    const values: unknown[] = new Array(names.length);
    for (let k = 0; k < names.length; k++) {
      const value = this.settledFact(names[k] as string);
      if (value === undefined) return null;
      values[k] = value;
    }
    return values;
  }

  async recorded(): Promise<Record<string, unknown>> {
    const { factNames, factOwners } = this.catalog;
    const names: string[] = [];
    this.read.forEach((read, i) => {
      if (read && factOwners[i]?.io === true) names.push(factNames[i] as string);
    });
    const values = await this.gather(names, false);
    const recorded: Record<string, unknown> = {};
    names.forEach((name, i) => {
      recorded[name] = values[i] ?? null;
    });
    return recorded;
  }

  /** The plugin's facts, once it has run (running it first if it has not). */
  private valuesOf(plugin: Plugin): Promise<FactValues> {
    const i = this.catalog.pluginIndex.get(plugin) as number;
    this.start(plugin, i);
    const settled = this.settled[i];
    // A promise only for a reader that waits: a plugin that answered at once has none until one asks.
    if (settled && !this.values[i]) this.values[i] = Promise.resolve(settled);
    return this.values[i] as Promise<FactValues>;
  }

  /**
   * Runs plugin number `i` unless it has run or is running: its facts are then in `settled` (it answered at
   * once) or on their way (`values`, settled when they come).
   */
  private start(plugin: Plugin, i: number): void {
    if (this.settled[i] || this.values[i]) return;
    const readable = this.catalog.readableBy(i);
    const tree = plugin.pure ? memoTree(this.request.options, plugin) : undefined;
    let context: RunContext | MemoContext;
    if (tree) {
      const remembered = this.walk(tree.start);
      if (remembered) {
        this.settle(plugin, i, remembered, REMEMBERED);
        return;
      }
      context = new MemoContext(this, plugin, readable);
    } else context = new RunContext(this, plugin, readable);
    // Timed from here: the clock is read twice per plugin that runs, not for one answered from its memo tree.
    const started = performance.now();
    let running: Promise<FactValues> | FactValues;
    try {
      running = plugin.run(context);
    } catch (error) {
      this.request.services.onPluginError?.(plugin.id, error);
      this.settle(plugin, i, {}, started);
      return;
    }
    // A run that answered without a promise settles now: its facts are read without a wait (factNow).
    if (!isThenable(running)) {
      if (tree && context instanceof MemoContext && context.kept) tree.remember(context.reads, context.branches, running);
      this.settle(plugin, i, running, started);
      return;
    }
    // One reaction, not an async function's promise and its await's.
    this.values[i] = Promise.resolve(running).then(
      (values) => this.settle(plugin, i, values, started),
      (error: unknown) => {
        this.request.services.onPluginError?.(plugin.id, error);
        return this.settle(plugin, i, {}, started);
      },
    );
  }

  /**
   * A pure plugin's remembered run for this request's reads: each read of the tree made as the run would make
   * it (starting the plugins it reads, marking its facts as read); undefined at the first value not seen, or
   * a read that must wait (the plugin then runs, and reads the same again).
   */
  private walk(node: MemoNode): Readonly<FactValues> | undefined {
    for (;;) {
      if (node.facts) return node.facts;
      const read = node.read;
      if (!read) return undefined;
      let branch: MemoBranch | undefined;
      if ('facts' in read) {
        // Several pure plugins read the same group (the domain's forms): read once, its owners settled and its
        // facts marked, its key holds for the rest of the request.
        branch = this.groupKeys?.get(read.facts);
        if (branch === undefined) {
          const values = this.gatherNow(read.facts, true);
          if (!values) return undefined;
          branch = this.groupKey(read.facts, values);
          if (branch === undefined) return undefined;
        }
      } else {
        const set = this.listEntries(read.list);
        if (isThenable(set)) return undefined;
        branch = set;
      }
      const next = branch === undefined ? undefined : branchOf(node, branch);
      if (!next) return undefined;
      node = next;
    }
  }

  /** The key of a group's values (memo.ts valuesKey), one string per group and request: every tree holding it shares it. */
  groupKey(names: readonly string[], values: readonly unknown[]): string | undefined {
    let key = this.groupKeys?.get(names);
    if (key === undefined) {
      key = valuesKey(values);
      if (key === undefined) return undefined;
      this.groupKeys ??= new Map();
      this.groupKeys.set(names, key);
    }
    return key;
  }

  /** A project list's entries (see RunServices.lists). */
  listEntries(list: string): ReadonlySet<string> | Promise<ReadonlySet<string>> {
    return (this.request.services.lists ?? NO_PROJECT_LISTS).entries(list);
  }

  /** `started`: when the run began (performance.now), or REMEMBERED for a memo tree's answer (see rememberedApplies). */
  private settle(plugin: Plugin, i: number, values: FactValues, started: number): FactValues {
    const remembered = started === REMEMBERED;
    // Per plugin, not per check: one run computes the facts of all its checks (waits for facts it needs included).
    // A remembered answer computed nothing: counted as a run of 0 s (its tree's reads, well under the first
    // bucket, are not timed; the plugins they start are timed as their own runs).
    if (this.request.timed !== false) checkDuration.observe(plugin.id, remembered ? 0 : secondsSince(started));
    this.settled[i] = values;
    this.ran.push(plugin.id);
    if (remembered ? rememberedApplies(this.catalog, i, values) : this.catalog.anyKnown(i, values)) this.applied.push(plugin.id);
    return values;
  }

  /** What a plugin reading `name` through ctx.fact gets: the value, or an error when `needs` does not allow it. */
  factFor(plugin: Plugin, readable: ReadonlySet<string>, name: string): Promise<unknown> {
    if (!readable.has(name)) return Promise.reject(this.undeclared(plugin, name));
    return this.fact(name);
  }

  /** What a plugin reading several facts through ctx.facts gets, as factFor each. */
  factsFor(plugin: Plugin, readable: ReadonlySet<string>, names: readonly string[]): Promise<unknown[]> {
    for (const name of names) if (!readable.has(name)) return Promise.reject(this.undeclared(plugin, name));
    return this.gather(names, true);
  }

  /**
   * What a plugin's ctx.withFacts gives `then`: the values now when at hand, else after factsFor's wait.
   * `seen` is told the values at hand, or null when they must be waited for.
   */
  withFactsFor<R>(
    plugin: Plugin,
    readable: ReadonlySet<string>,
    names: readonly string[],
    then: (values: unknown[]) => R | Promise<R>,
    seen?: (values: unknown[] | null) => void,
  ): R | Promise<R> {
    for (const name of names) if (!readable.has(name)) return Promise.reject(this.undeclared(plugin, name));
    const now = this.gatherNow(names, true);
    seen?.(now);
    return now ? then(now) : this.gather(names, true).then(then);
  }

  /** Options of one of the plugin's checks: the policy's, over the check's defaults. */
  optionsFor(plugin: Plugin, check: string): CheckOptions {
    return this.request.options[check] ?? plugin.checks[check]?.defaults ?? {};
  }

  /** What a plugin's ctx.projectList gives: the list's entries, or an error when `projectLists` does not name it. */
  projectListFor(plugin: Plugin, list: string): ReadonlySet<string> | Promise<ReadonlySet<string>> {
    if (!plugin.projectLists?.includes(list)) {
      return Promise.reject(new UndeclaredNeedError(`plugin ${plugin.id} read project list ${list}, which it does not declare in projectLists`));
    }
    return this.listEntries(list);
  }

  private undeclared(plugin: Plugin, name: string): Error {
    const owner = this.catalog.owner.get(name);
    if (!owner) return new UnknownFactError(`plugin ${plugin.id} read fact ${name}, which no plugin emits`);
    if (owner === plugin) return new UndeclaredNeedError(`plugin ${plugin.id} read its own fact ${name} through ctx.fact; compute it in run() instead`);
    return new UndeclaredNeedError(`plugin ${plugin.id} read fact ${name} of plugin ${owner.id}, which it does not declare in needs`);
  }
}

/** A plugin's context for one request (a class: no closures to build for each of the ~25 plugins a run calls). */
class RunContext implements PluginContext {
  readonly input: RequestInput;
  readonly velocity: VelocityReader;

  constructor(
    private readonly run: RequestRun,
    private readonly plugin: Plugin,
    private readonly readable: ReadonlySet<string>,
  ) {
    const { request } = run;
    this.input = request.input;
    this.velocity = request.services.velocity;
  }

  get network(): NetworkAccess {
    if (this.plugin.network !== true) {
      throw new UndeclaredNeedError(
        `plugin ${this.plugin.id} read ctx.network, which it does not declare (Plugin.network): its facts would be stored as if they were no domain information`,
      );
    }
    return this.run.request.services.network ?? OFFLINE;
  }

  fact<T>(name: string): Promise<T | null> {
    return this.run.factFor(this.plugin, this.readable, name) as Promise<T | null>;
  }

  facts(names: readonly string[]): Promise<unknown[]> {
    return this.run.factsFor(this.plugin, this.readable, names);
  }

  withFacts<R>(names: readonly string[], then: (values: unknown[]) => R | Promise<R>): R | Promise<R> {
    return this.run.withFactsFor(this.plugin, this.readable, names, then);
  }

  options(check: string): CheckOptions {
    return this.run.optionsFor(this.plugin, check);
  }

  projectList(list: string): ReadonlySet<string> | Promise<ReadonlySet<string>> {
    return this.run.projectListFor(this.plugin, list);
  }

  now(): number {
    return this.run.request.services.now();
  }
}

/**
 * Whether a remembered answer (memo.ts: frozen, each distinct one held once per tree) says something: the same
 * for every request it answers. The catalog's own test reads every fact of the plugin.
 */
const knownAnswers = new WeakMap<Readonly<FactValues>, boolean>();

/** catalog.anyKnown of plugin number `i`'s remembered answer `values` (a memo tree's, held by no other plugin), worked out once. */
function rememberedApplies(catalog: FactCatalog, i: number, values: Readonly<FactValues>): boolean {
  let known = knownAnswers.get(values);
  if (known === undefined) {
    known = catalog.anyKnown(i, values);
    knownAnswers.set(values, known);
  }
  return known;
}

/** The remembered runs of pure plugins, by the options of the policy they ran under (a compiled policy keeps one object). */
const memoTrees = new WeakMap<object, Map<Plugin, MemoTree>>();

function memoTree(options: object, plugin: Plugin): MemoTree {
  let trees = memoTrees.get(options);
  if (!trees) {
    trees = new Map();
    memoTrees.set(options, trees);
  }
  let tree = trees.get(plugin);
  if (!tree) {
    tree = new MemoTree();
    trees.set(plugin, tree);
  }
  return tree;
}

/**
 * A pure plugin's context (Plugin.pure): its reads are recorded, with their values, for memo.ts to remember the
 * run by; what a pure plugin may not read throws. A read that must wait, a value that is not a scalar, or
 * ctx.fact / ctx.facts (promises) leave the run unremembered, not wrong.
 */
class MemoContext implements PluginContext {
  readonly reads: MemoRead[] = [];
  readonly branches: MemoBranch[] = [];
  /** Whether the run can be remembered by its reads so far. */
  kept = true;

  constructor(
    private readonly run: RequestRun,
    private readonly plugin: Plugin,
    private readonly readable: ReadonlySet<string>,
  ) {}

  get input(): RequestInput {
    throw this.impure('ctx.input');
  }

  get velocity(): VelocityReader {
    throw this.impure('ctx.velocity');
  }

  get network(): NetworkAccess {
    throw this.impure('ctx.network');
  }

  now(): number {
    throw this.impure('ctx.now()');
  }

  fact<T>(name: string): Promise<T | null> {
    this.kept = false;
    return this.run.factFor(this.plugin, this.readable, name) as Promise<T | null>;
  }

  facts(names: readonly string[]): Promise<unknown[]> {
    this.kept = false;
    return this.run.factsFor(this.plugin, this.readable, names);
  }

  withFacts<R>(names: readonly string[], then: (values: unknown[]) => R | Promise<R>): R | Promise<R> {
    return this.run.withFactsFor(this.plugin, this.readable, names, then, (values) => {
      const key = values && this.kept ? this.run.groupKey(names, values) : undefined;
      if (key === undefined) {
        this.kept = false;
        return;
      }
      this.reads.push({ facts: names });
      this.branches.push(key);
    });
  }

  options(check: string): CheckOptions {
    return this.run.optionsFor(this.plugin, check);
  }

  projectList(list: string): ReadonlySet<string> | Promise<ReadonlySet<string>> {
    const entries = this.run.projectListFor(this.plugin, list);
    if (isThenable(entries)) this.kept = false;
    else if (this.kept) {
      this.reads.push({ list });
      this.branches.push(entries);
    }
    return entries;
  }

  private impure(what: string): Error {
    return new Error(
      `plugin ${this.plugin.id} is declared pure (Plugin.pure) but read ${what}: its facts must follow from its facts read, options and project lists`,
    );
  }
}

/** One run's almanac: every fact the rules read is the request's, computed by RequestRun. */
class RunAlmanac extends Almanac implements NowAlmanac {
  constructor(readonly run: RequestRun) {
    super({ allowUndefinedFacts: false });
  }

  // Conditions carry neither params nor a path (the compiler never emits them), so the name is all there is.
  override factValue<T>(factId: string): Promise<T> {
    return this.run.fact(factId) as Promise<T>;
  }

  /** For condition-evaluation.ts: a condition's fact and its comparison in one promise. */
  factThen<T>(factId: string, then: (value: unknown) => T): Promise<T> {
    return this.run.factThen(factId, then);
  }

  /** For rule-evaluation.ts: a fact without a wait when at hand. */
  factNow(factId: string, waits: Set<Promise<unknown>>): unknown {
    return this.run.factNow(factId, waits);
  }
}

/**
 * Runs one compiled rule set against requests. Engines are pooled: their rules take each run's results on
 * their own condition trees (rule-results.ts), so two concurrent runs must never share one. A run goes
 * through runRules (rule-evaluation.ts), Engine#run's evaluation without a promise per priority set.
 */
export class PolicyRunner {
  private readonly idle: Engine[] = [];

  constructor(
    private readonly catalog: FactCatalog,
    private readonly rules: readonly RuleProperties[],
  ) {}

  get ruleCount(): number {
    return this.rules.length;
  }

  /** The request's facts without running the rules: for a caller that decides by itself (src/policy/decide-eagerly.ts). */
  facts(request: RunRequest): (name: string) => Promise<unknown> {
    const state = new RequestRun(request, this.catalog);
    return (name) => state.fact(name);
  }

  async run(request: RunRequest): Promise<RunOutcome> {
    const state = new RequestRun(request, this.catalog);
    const outcome: RunOutcome = {
      fired: [],
      pluginsRan: state.ran,
      pluginsApplied: state.applied,
      fact: (name) => state.fact(name),
      facts: (names) => state.factsOf(names),
      settledFacts: (names) => state.settledFacts(names),
      factsNow: (names) => state.factsNow(names),
      settledFact: (name) => state.settledFact(name),
      recorded: () => state.recorded(),
    };
    if (this.rules.length === 0) return outcome;
    const engine = this.idle.pop() ?? this.createEngine();
    const result = await runRules<RuleResult>(engine, new RunAlmanac(state), request.halts);
    // A run that threw leaves its engine out of the pool: its rules' trees may hold results half written.
    outcome.fired = result.results.map(firedRule);
    if (request.explain) outcome.rules = [...result.results, ...result.failureResults].map(ruleOutcome);
    this.idle.push(engine);
    return outcome;
  }

  private createEngine(): Engine {
    const engine = new Engine([], { allowUndefinedFacts: false, replaceFactsInEventParams: false });
    for (const rule of this.rules) engine.addRule(structuredClone(rule) as RuleProperties);
    // One run at a time per engine, its results read before it goes back to the pool: no copy per run.
    for (const rule of (engine as unknown as { rules: Array<{ conditions: never }> }).rules) keepResultsInPlace(rule);
    return engine;
  }
}

function firedRule(result: RuleResult): FiredRule {
  const conditions = result.conditions as { any?: Array<{ result?: boolean }>; all?: Array<{ result?: boolean }> };
  return { name: result.name, children: (conditions.any ?? conditions.all ?? []).map((c) => c.result === true) };
}

function ruleOutcome(result: RuleResult): RuleOutcome {
  const fired = result.result === true;
  // The engine records no result on the top-level node itself: it is the rule's.
  return { name: result.name, fired, conditions: { ...conditionOutcome(result.conditions as unknown as EngineConditionNode), result: fired } };
}

/** A node of a run's condition tree as json-rules-engine leaves it (see rule-results.ts). */
interface EngineConditionNode {
  all?: EngineConditionNode[];
  any?: EngineConditionNode[];
  not?: EngineConditionNode;
  fact?: string;
  operator?: string;
  value?: unknown;
  result?: boolean;
  factResult?: unknown;
}

function conditionOutcome(node: EngineConditionNode): ConditionOutcome {
  const result = typeof node.result === 'boolean' ? { result: node.result } : {};
  if (node.all) return { all: node.all.map(conditionOutcome), ...result };
  if (node.any) return { any: node.any.map(conditionOutcome), ...result };
  if (node.not) return { not: conditionOutcome(node.not), ...result };
  const seen = 'factResult' in node && result.result !== undefined ? { factResult: node.factResult } : {};
  return { fact: node.fact as string, operator: node.operator as string, value: node.value, ...result, ...seen };
}

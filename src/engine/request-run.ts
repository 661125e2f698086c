// One request's state: which plugins ran, and each fact's value, computed once and shared by every reader
// (the rules through the run's almanac, plugins through their context, the caller after the run). A plugin
// runs the first time one of its facts is asked for, so a request pays only for the checks it reads.
import { checkDuration, secondsSince } from '../metrics.js';
import type { FactCatalog } from './catalog.js';
import { RunContext } from './context.js';
import { UndeclaredNeedError, UnknownFactError } from './errors.js';
import { noReputation } from './no-history.js';
import type {
  CheckOptions,
  FactValues,
  NetworkAccess,
  Plugin,
  PluginContext,
  ProjectListReader,
  ReputationReader,
  RequestInput,
  VelocityReader,
} from './plugin.js';
import { CALLER, RULES, RunOrder } from './run-order.js';

export interface RunServices {
  velocity: VelocityReader;
  /** The project's labels (src/store/labels.ts); none when absent (a replay, a policy test, a bulk run). */
  reputation?: ReputationReader;
  /** The outside world for this request (DNS, RDAP, web); src/network/offline.ts's OFFLINE when network checks are off. */
  network: NetworkAccess;
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
  /** Keep every rule's condition results (RunOutcome.rules), for an explanation; off by default. */
  explain?: boolean;
  /**
   * Facts given rather than computed (a replay's recorded facts): a fact it answers (anything but undefined)
   * is taken as is and its plugin is not run for it.
   */
  given?(name: string): unknown;
  /** Observe each plugin's duration for GET /metrics (default); a replay of a million events skips it. */
  timed?: boolean;
}

const EMPTY_LIST: ReadonlySet<string> = new Set();
const NO_LIST = Promise.resolve(EMPTY_LIST);
/** A project with no lists of its own. */
export const NO_PROJECT_LISTS: ProjectListReader = { entries: () => NO_LIST };

export { CALLER, RULES } from './run-order.js';

const NOT_ASKED = Symbol('not asked');

export class RequestRun {
  /** By plugin number (catalog.pluginIndex): its run, once started. */
  private readonly runs: Array<Promise<FactValues> | undefined>;
  /** By plugin number: its facts once its run has settled. */
  private readonly settled: Array<FactValues | undefined>;
  /** The order plugins are listed in (run-order.ts). */
  readonly order: RunOrder;
  /**
   * By fact number (catalog.factIndex): its value's promise, made at its first read and shared by every later
   * one, so a read of a settled fact allocates nothing.
   */
  private readonly values: Array<Promise<unknown> | undefined>;
  /**
   * By fact number: whether the rules or a plugin read it (fact()); a caller's reads after the run (facts())
   * are not counted, so the I/O facts among these are those the decision stood on (recorded()).
   */
  private readonly read: Uint8Array;
  /** By fact number: what RunRequest.given answered (NOT_ASKED until asked; not undefined: its plugin is not run for it). */
  private readonly givenAnswers: unknown[] | undefined;

  constructor(
    readonly request: RunRequest,
    private readonly catalog: FactCatalog,
  ) {
    const plugins = catalog.pluginIndex.size;
    const facts = catalog.factNames.length;
    this.runs = new Array(plugins);
    this.settled = new Array(plugins);
    this.values = new Array(facts);
    // One byte a fact, zeroed by the allocation: the catalog's few hundred facts cost no fill per request.
    this.read = new Uint8Array(facts);
    if (request.given) this.givenAnswers = new Array<unknown>(facts).fill(NOT_ASKED);
    this.order = new RunOrder(catalog, (i) => {
      const given = this.givenAnswers?.[i];
      return given !== undefined && given !== NOT_ASKED;
    });
  }

  /** Plugin ids whose runs have settled, in the order run-order.ts gives. */
  get ran(): readonly string[] {
    return this.order.ran;
  }

  /** Those of `ran` with a known fact (see RunOutcome.pluginsApplied). */
  get applied(): readonly string[] {
    return this.order.applied;
  }

  /** The value of `name` (null when its plugin gave none), counted as read by `reader` (RULES, CALLER or a plugin number). */
  fact(name: string, reader: number): Promise<unknown> {
    const i = this.catalog.factIndex.get(name);
    if (i === undefined) return Promise.reject(new UnknownFactError(`unknown fact ${name}`));
    this.read[i] = 1;
    this.order.read(i, reader);
    return this.value(i, name);
  }

  /** The values of several facts, in order, read by the rules before the engine reads them (see PolicyRunner). */
  rulesWillRead(names: readonly string[]): Promise<unknown[]> {
    return this.gather(names, RULES);
  }

  /** The values of several facts, in order, read by plugin number `reader` (its ctx.facts). */
  readBy(names: readonly string[], reader: number): Promise<unknown[]> {
    return this.gather(names, reader);
  }

  /** The values of several facts, in order, read by no one: their plugins run, but the read counts nowhere (outcome-memo.ts). */
  peek(names: readonly string[]): Promise<unknown[]> {
    return this.gather(names, undefined);
  }

  /** Counts facts as read by the rules, as if the engine had read them (a remembered outcome's, outcome-memo.ts). */
  readByRules(names: readonly string[]): void {
    for (const name of names) {
      const i = this.catalog.factIndex.get(name);
      if (i !== undefined) this.read[i] = 1;
    }
  }

  /** The values of several facts, in order, read by the caller and not counted as read (see `read`). */
  facts(names: readonly string[]): Promise<unknown[]> {
    return this.gather(names, CALLER);
  }

  /**
   * Several values with one wait for the plugins behind them, none when they have settled (nearly always
   * after a run): the values then come in one array, not a promise per fact. `reader`: who reads (see fact()).
   */
  private gather(names: readonly string[], reader: number | undefined): Promise<unknown[]> {
    const { factIndex, factOwnerIndex } = this.catalog;
    let waits: number[] | undefined;
    for (const name of names) {
      const i = factIndex.get(name);
      if (i === undefined) return Promise.reject(new UnknownFactError(`unknown fact ${name}`));
      if (reader !== undefined && reader !== CALLER) this.read[i] = 1;
      if (reader !== undefined) this.order.read(i, reader);
      const p = factOwnerIndex[i] as number;
      if (this.givenOf(i, name) !== undefined || this.settled[p]) continue;
      this.runOf(i);
      if (!waits) waits = [p];
      else if (!waits.includes(p)) waits.push(p);
    }
    return waits ? this.afterRuns(waits, names) : Promise.resolve(this.settledValues(names));
  }

  /**
   * Waits for plugin runs (by number) in turn, skipping those settled meanwhile: most settle while the
   * first is awaited, so this makes fewer promises than Promise.all. Runs never reject (see start).
   */
  private async afterRuns(waits: readonly number[], names: readonly string[]): Promise<unknown[]> {
    for (const p of waits) if (this.settled[p] === undefined) await this.runs[p];
    return this.settledValues(names);
  }

  /** The values of facts whose plugins have settled (or given). */
  private settledValues(names: readonly string[]): unknown[] {
    const { factIndex, factOwnerIndex } = this.catalog;
    const values: unknown[] = new Array(names.length);
    for (let k = 0; k < names.length; k++) {
      const name = names[k] as string;
      const i = factIndex.get(name) as number;
      const given = this.givenOf(i, name);
      values[k] = given !== undefined ? given : ((this.settled[factOwnerIndex[i] as number] as FactValues)[name] ?? null);
    }
    return values;
  }

  /** What RunRequest.given answers for fact number `i`, asked once per run (a replay counts what it lacks). */
  private givenOf(i: number, name: string): unknown {
    const answers = this.givenAnswers;
    if (!answers) return undefined;
    let answer = answers[i];
    if (answer === NOT_ASKED) {
      answer = (this.request.given as (name: string) => unknown)(name);
      answers[i] = answer;
    }
    return answer;
  }

  /** The I/O facts (network, history) the rules or plugins read, with their values: what a replay cannot compute again. */
  async recorded(): Promise<Record<string, unknown>> {
    const { factNames, factOwners } = this.catalog;
    const names: string[] = [];
    for (let i = 0; i < factNames.length; i++) if (this.read[i] && factOwners[i]?.io === true) names.push(factNames[i] as string);
    const values = await this.facts(names);
    const recorded: Record<string, unknown> = {};
    names.forEach((name, k) => {
      recorded[name] = values[k] ?? null;
    });
    return recorded;
  }

  /** Options of one of the plugin's checks: the policy's, over the check's defaults. */
  optionsFor(plugin: Plugin, check: string): CheckOptions {
    return this.request.options[check] ?? plugin.checks[check]?.defaults ?? {};
  }

  /** A project list's entries (see RunServices.lists). */
  listEntries(list: string): Promise<ReadonlySet<string>> {
    return (this.request.services.lists ?? NO_PROJECT_LISTS).entries(list);
  }

  get network(): NetworkAccess {
    return this.request.services.network;
  }

  get reputation(): ReputationReader {
    return this.request.services.reputation ?? noReputation;
  }

  private value(i: number, name: string): Promise<unknown> {
    let value = this.values[i];
    if (value === undefined) {
      const given = this.givenOf(i, name);
      const settled = this.settled[this.catalog.factOwnerIndex[i] as number];
      if (given !== undefined) value = Promise.resolve(given);
      else if (settled) value = Promise.resolve(settled[name] ?? null);
      else value = this.runOf(i).then(this.catalog.factOf[i]);
      this.values[i] = value;
    }
    return value;
  }

  /** The run of the plugin owning fact number `i`, started at its first read. */
  private runOf(fact: number): Promise<FactValues> {
    const p = this.catalog.factOwnerIndex[fact] as number;
    let run = this.runs[p];
    if (run === undefined) {
      run = this.start(this.catalog.factOwners[fact] as Plugin, p);
      this.runs[p] = run;
    }
    return run;
  }

  private start(plugin: Plugin, i: number): Promise<FactValues> {
    const context = this.contextFor(plugin, i);
    const started = this.request.timed === false ? 0 : performance.now();
    let running: Promise<FactValues>;
    try {
      running = plugin.run(context);
    } catch (error) {
      running = Promise.reject(error);
    }
    return running.then(
      (values) => this.settle(plugin, i, values, started),
      (error: unknown) => {
        this.request.services.onPluginError?.(plugin.id, error);
        return this.settle(plugin, i, {}, started);
      },
    );
  }

  private settle(plugin: Plugin, i: number, values: FactValues, started: number): FactValues {
    // Per plugin, not per check: one run computes the facts of all its checks (waits for facts it needs included).
    if (this.request.timed !== false) checkDuration.observe(plugin.id, secondsSince(started));
    this.settled[i] = values;
    this.order.settled(i, plugin.id, this.catalog.anyKnown(i, values));
    return values;
  }

  private contextFor(plugin: Plugin, i: number): PluginContext {
    return new RunContext(this, plugin, i, this.catalog.readableBy(i));
  }

  /** Why `plugin` may not read fact `name` through ctx.fact. */
  undeclared(plugin: Plugin, name: string): Error {
    const owner = this.catalog.owner.get(name);
    if (!owner) return new UnknownFactError(`plugin ${plugin.id} read fact ${name}, which no plugin emits`);
    if (owner === plugin) return new UndeclaredNeedError(`plugin ${plugin.id} read its own fact ${name} through ctx.fact; compute it in run() instead`);
    return new UndeclaredNeedError(`plugin ${plugin.id} read fact ${name} of plugin ${owner.id}, which it does not declare in needs`);
  }
}

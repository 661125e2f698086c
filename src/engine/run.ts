// The per-request runner: every fact of every plugin is a json-rules-engine dynamic fact. A plugin runs
// the first time one of its facts is asked for, once per request, so a request pays only for the checks
// its rules or its caller ask about. This module and src/policy are the only ones that know
// json-rules-engine; what leaves here is plain data (the rules that fired, the plugins that ran).
import { Almanac, Engine, Fact, type RuleProperties, type RuleResult } from 'json-rules-engine';
import { checkDuration, secondsSince } from '../metrics.js';
import type { FactCatalog } from './catalog.js';
import type { CheckOptions, FactValues, NetworkAccess, Plugin, PluginContext, ProjectListReader, RequestInput, VelocityReader } from './plugin.js';

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
export const NO_PROJECT_LISTS: ProjectListReader = { entries: async () => EMPTY_LIST };

const CHEAP_FACT_PRIORITY = 50;
const IO_FACT_PRIORITY = 1;

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
  private readonly values = new Map<string, Promise<FactValues>>();
  /** Each fact's value, once asked for: the engine reads a fact once per condition naming it. */
  private readonly facts = new Map<string, Promise<unknown>>();

  constructor(
    readonly request: RunRequest,
    private readonly catalog: FactCatalog,
  ) {}

  /** The value of `name`; null when its plugin gave none. */
  fact(name: string): Promise<unknown> {
    let value = this.facts.get(name);
    if (!value) {
      const plugin = this.catalog.owner.get(name);
      if (!plugin) return Promise.reject(new UnknownFactError(`unknown fact ${name}`));
      value = this.valuesOf(plugin).then((values) => values[name] ?? null);
      this.facts.set(name, value);
    }
    return value;
  }

  private valuesOf(plugin: Plugin): Promise<FactValues> {
    let values = this.values.get(plugin.id);
    if (!values) {
      values = this.runPlugin(plugin);
      this.values.set(plugin.id, values);
    }
    return values;
  }

  private async runPlugin(plugin: Plugin): Promise<FactValues> {
    const { request } = this;
    const readable = this.catalog.readableBy(plugin);
    const ctx: PluginContext = {
      input: request.input,
      fact: <T>(name: string) => {
        if (!readable.has(name)) return Promise.reject(this.undeclared(plugin, name));
        return this.fact(name) as Promise<T | null>;
      },
      options: (check) => request.options[check] ?? plugin.checks[check]?.defaults ?? {},
      velocity: request.services.velocity,
      network: request.services.network ?? OFFLINE,
      projectList: (list) => {
        if (!plugin.projectLists?.includes(list))
          return Promise.reject(new UndeclaredNeedError(`plugin ${plugin.id} read project list ${list}, which it does not declare in projectLists`));
        return (request.services.lists ?? NO_PROJECT_LISTS).entries(list);
      },
      now: () => request.services.now(),
    };
    let values: FactValues;
    const started = performance.now();
    try {
      values = await plugin.run(ctx);
    } catch (error) {
      request.services.onPluginError?.(plugin.id, error);
      values = {};
    }
    // Per plugin, not per check: one run computes the facts of all its checks (waits for facts it needs included).
    checkDuration.observe({ plugin: plugin.id }, secondsSince(started));
    this.ran.push(plugin.id);
    if (Object.keys(plugin.facts).some((name) => this.catalog.isKnown(name, values[name]))) this.applied.push(plugin.id);
    return values;
  }

  private undeclared(plugin: Plugin, name: string): Error {
    const owner = this.catalog.owner.get(name);
    if (!owner) return new UnknownFactError(`plugin ${plugin.id} read fact ${name}, which no plugin emits`);
    if (owner === plugin) return new UndeclaredNeedError(`plugin ${plugin.id} read its own fact ${name} through ctx.fact; compute it in run() instead`);
    return new UndeclaredNeedError(`plugin ${plugin.id} read fact ${name} of plugin ${owner.id}, which it does not declare in needs`);
  }
}

/**
 * Runs one compiled rule set against requests. Engines are pooled: json-rules-engine keeps its run
 * status on the engine, so two concurrent runs must never share one.
 */
export class PolicyRunner {
  private readonly idle: Engine[] = [];
  /** Each run's state, found from the almanac json-rules-engine hands to facts and events. */
  private readonly runs = new WeakMap<Almanac, RequestRun>();

  constructor(
    private readonly catalog: FactCatalog,
    private readonly rules: readonly RuleProperties[],
  ) {}

  get ruleCount(): number {
    return this.rules.length;
  }

  async run(request: RunRequest): Promise<RunOutcome> {
    const engine = this.idle.pop() ?? this.createEngine();
    const state = new RequestRun(request, this.catalog);
    const almanac = new Almanac({ allowUndefinedFacts: false });
    this.runs.set(almanac, state);
    try {
      const result = await engine.run({}, { almanac });
      return {
        fired: result.results.map(firedRule),
        pluginsRan: state.ran,
        pluginsApplied: state.applied,
        fact: (name) => state.fact(name),
      };
    } finally {
      this.idle.push(engine);
    }
  }

  private createEngine(): Engine {
    const engine = new Engine([], { allowUndefinedFacts: false, replaceFactsInEventParams: false });
    for (const rule of this.rules) engine.addRule(structuredClone(rule) as RuleProperties);
    for (const plugin of this.catalog.plugins.values()) {
      const priority = plugin.io ? IO_FACT_PRIORITY : CHEAP_FACT_PRIORITY;
      for (const name of Object.keys(plugin.facts)) {
        // Not cached by the engine (it would hash every read's parameters): RequestRun computes each plugin once.
        engine.addFact(new Fact(name, (_params, almanac) => this.stateOf(almanac).fact(name), { cache: false, priority }));
      }
    }
    engine.on('success', (_event, almanac, result) => {
      if (this.stateOf(almanac).request.halts?.(result.name)) engine.stop();
    });
    return engine;
  }

  private stateOf(almanac: Almanac): RequestRun {
    const state = this.runs.get(almanac);
    if (!state) throw new Error('a fact was asked for outside a run of this runner');
    return state;
  }
}

function firedRule(result: RuleResult): FiredRule {
  const conditions = result.conditions as { any?: Array<{ result?: boolean }>; all?: Array<{ result?: boolean }> };
  return { name: result.name, children: (conditions.any ?? conditions.all ?? []).map((c) => c.result === true) };
}

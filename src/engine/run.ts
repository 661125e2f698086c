// Runs a compiled rule set against requests with json-rules-engine as published: the rules are added once
// to pooled engines, and each run gets its own almanac (almanac.ts), which answers every fact from the
// request's state (request-run.ts). This module and src/policy are the only ones that know the engine;
// what leaves here is plain data (the rules that fired, the plugins that ran).
import { Engine, type RuleProperties, type RuleResult } from 'json-rules-engine';
import { RunAlmanac } from './almanac.js';
import type { FactCatalog } from './catalog.js';
import { OPERATORS_OF_OUR_OWN } from './operators.js';
import { OutcomeMemo } from './outcome-memo.js';
import { CALLER, RequestRun, type RunRequest } from './request-run.js';

export { UndeclaredNeedError, UnknownFactError } from './errors.js';
export { NO_PROJECT_LISTS, type RunRequest, type RunServices } from './request-run.js';

/** Condition priorities (higher first within an `all`/`any`): a cheap fact decides before a fact that needs I/O. */
export const CHEAP_FACT_PRIORITY = 50;
export const IO_FACT_PRIORITY = 1;

/** The priority of conditions on `fact`: the compiler sets it on each condition (see src/policy/rules.ts). */
export function factPriority(catalog: FactCatalog, fact: string): number {
  return catalog.owner.get(fact)?.io ? IO_FACT_PRIORITY : CHEAP_FACT_PRIORITY;
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
  /** The values of several facts, in order; not counted among the facts the decision stood on (recorded()). */
  facts(names: readonly string[]): Promise<unknown[]>;
  /** With RunRequest.explain: every rule evaluated (fired or not) with its conditions' results. */
  rules?: RuleOutcome[];
  /**
   * The facts of I/O plugins (network, history) that the rules or other plugins read in this run, with their
   * values: what a replay cannot compute again offline, so it is stored with the event.
   */
  recorded(): Promise<Record<string, unknown>>;
}

/**
 * A run's outcome. A class, not an object literal with getters: each literal's getters are new closures, so
 * each object gets a hidden class of its own, made in the old generation, which holds the request's state
 * alive through scavenges (promoted, then collected only by a full collection).
 */
class Outcome implements RunOutcome {
  fired: FiredRule[] = [];
  rules?: RuleOutcome[];
  readonly fact: (name: string) => Promise<unknown>;
  readonly facts: (names: readonly string[]) => Promise<unknown[]>;
  readonly recorded: () => Promise<Record<string, unknown>>;

  constructor(private readonly state: RequestRun) {
    this.fact = (name) => state.fact(name, CALLER);
    this.facts = (names) => state.facts(names);
    this.recorded = () => state.recorded();
  }

  get pluginsRan(): readonly string[] {
    return this.state.ran;
  }

  get pluginsApplied(): readonly string[] {
    return this.state.applied;
  }
}

/**
 * Runs one compiled rule set against requests. Engines are pooled: Engine#run keeps its status (running,
 * stopped) on the engine, so two concurrent runs, one of which stops early (stop_on_block), must not share one.
 */
export class PolicyRunner {
  private readonly idle: Engine[] = [];
  /** Rule name → its place among the rules, for the order of their results (see rulesRead). */
  private readonly places: ReadonlyMap<string, number>;
  /** The facts every run's engine reads, whatever their values (see certainReads). */
  private readonly certain: readonly string[];
  /** The engine's answers by the values it read (outcome-memo.ts). */
  private readonly memo: OutcomeMemo;

  /** `halts`: whether a rule of this name, once fired, stops the evaluation of lower-priority rules. */
  constructor(
    private readonly catalog: FactCatalog,
    private readonly rules: readonly RuleProperties[],
    private readonly halts?: (ruleName: string) => boolean,
  ) {
    this.places = new Map(rules.map((rule, i) => [rule.name as string, i]));
    this.certain = certainReads(rules);
    this.memo = new OutcomeMemo(this.certain);
  }

  get ruleCount(): number {
    return this.rules.length;
  }

  async run(request: RunRequest): Promise<RunOutcome> {
    const state = new RequestRun(request, this.catalog);
    const outcome = new Outcome(state);
    if (this.rules.length === 0) return outcome;
    // Read before the engine asks: it then finds them settled, rather than a chain of reactions per condition
    // waiting for each plugin. The same facts it reads in any case, so the same plugins run.
    const certain = await state.rulesWillRead(this.certain);
    // An explanation needs every condition's result.
    const recall = request.explain ? undefined : this.memo.recall(certain, (names) => state.peek(names));
    const memo = recall instanceof Promise ? await recall : recall;
    const known = memo?.known;
    if (known) {
      state.readByRules(known.reads);
      outcome.fired = [...known.fired];
      state.order.rulesRead = () => known.rulesRead;
      return outcome;
    }
    const engine = this.idle.pop() ?? this.createEngine();
    let results: RuleResult[];
    try {
      const result = await engine.run({}, { almanac: new RunAlmanac(state) });
      outcome.fired = result.results.map(firedRule);
      results = [...result.results, ...result.failureResults];
    } finally {
      this.idle.push(engine);
    }
    if (request.explain) outcome.rules = results.map(ruleOutcome);
    const read = rulesRead(results, this.places);
    state.order.rulesRead = () => read;
    await memo?.remember?.({ fired: outcome.fired, rulesRead: read, reads: [...new Set(read)] });
    return outcome;
  }

  private createEngine(): Engine {
    const engine = new Engine([], { allowUndefinedFacts: false, replaceFactsInEventParams: false });
    for (const operator of OPERATORS_OF_OUR_OWN) engine.addOperator(operator.name, operator.test);
    for (const rule of this.rules) engine.addRule(structuredClone(rule) as RuleProperties);
    // No lower-priority rule is evaluated once a rule that halts has fired (Engine#stop).
    const halts = this.halts;
    if (halts)
      engine.on('success', (_event, _almanac, result) => {
        if (halts(result.name as string)) engine.stop();
      });
    return engine;
  }
}

/**
 * The facts the engine reads on every run of `rules`: those of the first priority set of rules, and in each of
 * their `all`/`any` the conditions of its highest priority (each evaluated before anything can stop it).
 */
function certainReads(rules: readonly RuleProperties[]): string[] {
  const facts = new Set<string>();
  const visit = (node: EngineConditionNode): void => {
    if (typeof node.fact === 'string') facts.add(node.fact);
    else if (node.not) visit(node.not);
    else {
      const list = node.all ?? node.any ?? [];
      const top = Math.max(...list.map((c) => c.priority || 1));
      // A list of one is that one, whatever its priority.
      for (const child of list) if (list.length === 1 || (child.priority || 1) === top) visit(child);
    }
  };
  const first = Math.max(...rules.map((rule) => rule.priority ?? 1));
  for (const rule of rules) if ((rule.priority ?? 1) === first) visit(rule.conditions as unknown as EngineConditionNode);
  return [...facts];
}

/**
 * The facts the rules read, from their results, in the order of their conditions: the rules by priority
 * (highest first), and in each `all`/`any` the conditions by priority, each priority's in their order, as
 * json-rules-engine evaluates them; a condition it did not evaluate holds no result.
 */
function rulesRead(results: readonly RuleResult[], places: ReadonlyMap<string, number>): string[] {
  const facts: string[] = [];
  const visit = (node: EngineConditionNode): void => {
    if (typeof node.fact === 'string') {
      if (node.result !== undefined) facts.push(node.fact);
    } else if (node.not) visit(node.not);
    else {
      // A stable sort: a condition keeps its place among those of the same priority.
      const byPriority = [...(node.all ?? node.any ?? [])].sort((a, b) => (b.priority || 1) - (a.priority || 1));
      for (const child of byPriority) visit(child);
    }
  };
  const place = (result: RuleResult) => places.get(result.name as string) ?? 0;
  const ordered = [...results].sort((a, b) => (b.priority || 1) - (a.priority || 1) || place(a) - place(b));
  for (const result of ordered) visit(result.conditions as unknown as EngineConditionNode);
  return facts;
}

function firedRule(result: RuleResult): FiredRule {
  const conditions = result.conditions as { any?: Array<{ result?: boolean }>; all?: Array<{ result?: boolean }> };
  return { name: result.name as string, children: (conditions.any ?? conditions.all ?? []).map((c) => c.result === true) };
}

function ruleOutcome(result: RuleResult): RuleOutcome {
  const fired = result.result === true;
  // The engine records no result on the top-level node itself: it is the rule's.
  return {
    name: result.name as string,
    fired,
    conditions: { ...conditionOutcome(result.conditions as unknown as EngineConditionNode), result: fired },
  };
}

/** A node of a run's condition tree as json-rules-engine's RuleResult holds it. */
interface EngineConditionNode {
  all?: EngineConditionNode[];
  any?: EngineConditionNode[];
  not?: EngineConditionNode;
  fact?: string;
  operator?: string;
  value?: unknown;
  result?: boolean;
  factResult?: unknown;
  priority?: number;
}

function conditionOutcome(node: EngineConditionNode): ConditionOutcome {
  const result = typeof node.result === 'boolean' ? { result: node.result } : {};
  if (node.all) return { all: node.all.map(conditionOutcome), ...result };
  if (node.any) return { any: node.any.map(conditionOutcome), ...result };
  if (node.not) return { not: conditionOutcome(node.not), ...result };
  const seen = 'factResult' in node && result.result !== undefined ? { factResult: node.factResult } : {};
  return { fact: node.fact as string, operator: node.operator as string, value: node.value, ...result, ...seen };
}

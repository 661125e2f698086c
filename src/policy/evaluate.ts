// Running a compiled policy on one request: what the services call. They get a plain decision, the
// request's facts and the steps that ran, never the rule engine's results.
import type { RequestInput } from '../engine/plugin.js';
import type { RunOutcome, RunServices } from '../engine/run.js';
import type { CompiledPolicy, EnabledCheck, EnabledRule } from './compile.js';
import { type CompiledVerdict, decideVerdict, type VerdictDecision } from './compile-verdict.js';
import { type Decision, decide } from './decide.js';
import { type Explanation, explainRun } from './explain.js';

export interface Evaluation<D> {
  decision: D;
  /** Value of a fact for this request (runs its plugin if it has not run yet); null when unknown. */
  fact(name: string): Promise<unknown>;
  /** Values of several facts, in order (one wait for all of them). */
  facts(names: readonly string[]): Promise<unknown[]>;
  /** Ids of the plugins that ran, in the order they finished. */
  pluginsRan: readonly string[];
  /** Ids of the plugins that ran and applied to the request (see RunOutcome.pluginsApplied). */
  pluginsApplied: readonly string[];
  /**
   * The steps that ran, in run order (see stepsRun), then the free rules that ran (`rule_<name>`), then the
   * exemptions that applied (`exemption_<name>`), each in policy order.
   */
  steps(): Promise<string[]>;
  /** The checked types of the enabled checks that ran (see checksThatRan), each once, in policy order. */
  checkedTypes(): Promise<string[]>;
  /** Why the decision was reached (src/policy/explain.ts); only when evaluate() was asked to explain. */
  explanation?: Explanation;
  /** The network and history facts the decision read, with their values (see RunOutcome.recorded): stored with the event for replay. */
  recorded(): Promise<Record<string, unknown>>;
}

export interface EvaluateOptions {
  /** Keep the run's condition results and build `explanation` (costs a copy of them: off by default). */
  explain?: boolean;
  /** Facts taken as given instead of computed (see RunRequest.given): a replay's recorded facts. */
  given?(name: string): unknown;
  /** Observe each plugin's duration for GET /metrics (default: true); a replay of a million events skips it. */
  timed?: boolean;
}

/** The policy's decision on one request. */
export async function evaluate(
  policy: CompiledPolicy,
  input: RequestInput,
  services: RunServices,
  options: EvaluateOptions = {},
): Promise<Evaluation<Decision>> {
  const outcome = await policy.runner.run({
    input,
    options: policy.options,
    services,
    ...(options.explain ? { explain: true } : {}),
    ...(options.given ? { given: options.given } : {}),
    ...(options.timed === false ? { timed: false } : {}),
  });
  const decision = decide(policy, outcome.fired);
  const applied = decision.exemptions.length > 0 ? policy.exemptions.filter((e) => decision.exemptions.includes(e.name)).map((e) => e.id) : NO_STEPS;
  const result = new RunEvaluation(policy, outcome, decision, applied);
  if (options.explain) result.explanation = explainRun(policy, outcome.rules ?? [], result.decision);
  return result;
}

/** The intelligence verdict on one request, with the policy's check options for the facts it reads. */
export async function evaluateVerdict(
  policy: CompiledPolicy,
  verdict: CompiledVerdict,
  input: RequestInput,
  services: RunServices,
): Promise<Evaluation<VerdictDecision>> {
  const outcome = await verdict.runner.run({ input, options: policy.options, services });
  return evaluation(policy, outcome, decideVerdict(verdict, outcome.fired));
}

function evaluation<D>(policy: CompiledPolicy, outcome: RunOutcome, decision: D): Evaluation<D> {
  return new RunEvaluation(policy, outcome, decision, NO_STEPS);
}

const NO_STEPS: readonly string[] = [];

/**
 * A class, not an object literal with getters: each literal's getters are new closures, so each object gets a
 * hidden class of its own, made in the old generation, which holds the request's state through scavenges.
 */
class RunEvaluation<D> implements Evaluation<D> {
  readonly fact: (name: string) => Promise<unknown>;
  readonly facts: (names: readonly string[]) => Promise<unknown[]>;
  readonly recorded: () => Promise<Record<string, unknown>>;
  explanation?: Explanation;
  private ran: Promise<EnabledCheck[]> | undefined;

  constructor(
    private readonly policy: CompiledPolicy,
    private readonly outcome: RunOutcome,
    readonly decision: D,
    /** The exemptions that applied (`exemption_<name>`), listed after the rules that ran. */
    private readonly exemptionSteps: readonly string[],
  ) {
    this.fact = outcome.fact;
    this.facts = outcome.facts;
    this.recorded = outcome.recorded;
  }

  get pluginsRan(): readonly string[] {
    return this.outcome.pluginsRan;
  }

  get pluginsApplied(): readonly string[] {
    return this.outcome.pluginsApplied;
  }

  // Worked out once, when steps or checked types are first asked for (show_results and show_steps both need it).
  private checks(): Promise<EnabledCheck[]> {
    this.ran ??= checksThatRan(this.policy, this.outcome);
    return this.ran;
  }

  readonly steps = async (): Promise<string[]> => {
    const { policy, outcome } = this;
    const [checksRan, rulesRan] = await Promise.all([this.checks(), thatRan(outcome, policy, policy.rules)]);
    return [...stepsRun(policy, outcome.pluginsApplied, checksRan), ...rulesRan.map((rule) => rule.id), ...this.exemptionSteps];
  };

  readonly checkedTypes = async (): Promise<string[]> => checkedTypesOf(await this.checks());
}

/** The checked types of `checks`, each once, in their order. */
function checkedTypesOf(checks: readonly EnabledCheck[]): string[] {
  const types: string[] = [];
  for (const { checkedType } of checks) if (checkedType && !types.includes(checkedType)) types.push(checkedType);
  return types;
}

/**
 * The enabled checks that could run on this request, in policy order: their plugin applied and a fact
 * their condition reads is known. A check whose evidence is all null or "could not tell" (no IP, network
 * checks off, every lookup failed) did not run as far as the caller is concerned: it is "not checked".
 */
function checksThatRan(policy: CompiledPolicy, outcome: RunOutcome): Promise<EnabledCheck[]> {
  const applied = outcome.pluginsApplied;
  return thatRan(
    outcome,
    policy,
    policy.checks.filter((check) => applied.includes(check.plugin.id)),
  );
}

/** Those of `candidates` (checks or free rules) with a fact they read known on this request, in their order. */
async function thatRan<T extends EnabledCheck | EnabledRule>(outcome: RunOutcome, policy: CompiledPolicy, candidates: readonly T[]): Promise<T[]> {
  const ran = new Set<T>();
  // Each one's facts in order until one is known, every one's next fact asked for at once: one wait per
  // round (nearly always one round) rather than one per fact, and the same facts read as one by one.
  let pending = candidates.filter((c) => c.reads.length > 0).map((item) => ({ item, next: 0 }));
  while (pending.length > 0) {
    const values = await outcome.facts(pending.map(({ item, next }) => item.reads[next] as string));
    pending = pending.filter((p, i) => {
      if (policy.catalog.isKnown(p.item.reads[p.next] as string, values[i])) ran.add(p.item);
      else if (++p.next < p.item.reads.length) return true;
      return false;
    });
  }
  return candidates.filter((c) => ran.has(c));
}

/**
 * Steps of the plugins that applied, in the order they finished: a step that is a check counts when it ran
 * (`checksRan`); a step that is only a signal counts whenever its plugin applied.
 */
export function stepsRun(policy: CompiledPolicy, pluginsApplied: readonly string[], checksRan: readonly EnabledCheck[]): string[] {
  const ran = new Set(checksRan.map((c) => c.name));
  const steps: string[] = [];
  for (const id of pluginsApplied) {
    const plugin = policy.catalog.plugins.get(id);
    if (!plugin) continue;
    for (const step of plugin.steps) if (step in plugin.checks ? ran.has(step) : true) steps.push(step);
  }
  return steps;
}

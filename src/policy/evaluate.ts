// Running a compiled policy on one request: what the services call. They get a plain decision, the
// request's facts and the steps that ran, never the rule engine's results.
import type { RequestInput } from '../engine/plugin.js';
import type { RunOutcome, RunServices } from '../engine/run.js';
import type { CompiledPolicy } from './compile.js';
import { type CompiledVerdict, decideVerdict, haltsAfter, type VerdictDecision } from './compile-verdict.js';
import { type Decision, decide } from './decide.js';

export interface Evaluation<D> {
  decision: D;
  /** Value of a fact for this request (runs its plugin if it has not run yet); null when unknown. */
  fact(name: string): Promise<unknown>;
  /** Ids of the plugins that ran, in the order they finished. */
  pluginsRan: readonly string[];
  /** The steps that ran, in run order (see stepsRun). */
  steps(): string[];
}

/** The policy's decision on one request. */
export async function evaluate(policy: CompiledPolicy, input: RequestInput, services: RunServices): Promise<Evaluation<Decision>> {
  const outcome = await policy.runner.run({ input, options: policy.options, services });
  return evaluation(policy, outcome, decide(policy, outcome.fired));
}

/** The intelligence verdict on one request, with the policy's check options for the facts it reads. */
export async function evaluateVerdict(
  policy: CompiledPolicy,
  verdict: CompiledVerdict,
  input: RequestInput,
  services: RunServices,
): Promise<Evaluation<VerdictDecision>> {
  const outcome = await verdict.runner.run({ input, options: policy.options, services, halts: (rule) => haltsAfter(verdict, rule) });
  return evaluation(policy, outcome, decideVerdict(verdict, outcome.fired));
}

function evaluation<D>(policy: CompiledPolicy, outcome: RunOutcome, decision: D): Evaluation<D> {
  return { decision, fact: outcome.fact, pluginsRan: outcome.pluginsRan, steps: () => stepsRun(policy, outcome.pluginsRan) };
}

/**
 * Steps of the plugins that ran, in run order: a step that is a check counts when the policy enables
 * it; a step that is only a signal counts whenever its plugin ran.
 */
export function stepsRun(policy: CompiledPolicy, pluginsRan: readonly string[]): string[] {
  const enabled = new Set(policy.checks.map((c) => c.name));
  const steps: string[] = [];
  for (const id of pluginsRan) {
    const plugin = policy.catalog.plugins.get(id);
    if (!plugin) continue;
    for (const step of plugin.steps) if (step in plugin.checks ? enabled.has(step) : true) steps.push(step);
  }
  return steps;
}

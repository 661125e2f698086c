// POST /v1/public/verify without Koa: a request and a project in, a response out. Every call is
// recorded as an event, committed before the response is returned.
import type { FactSpec } from '../engine/plugin.js';
import type { RunOutcome, RunServices } from '../engine/run.js';
import type { CompiledPolicy } from '../policy/compile.js';
import { decide } from '../policy/decide.js';
import type { Action } from '../policy/types.js';
import { canonicalIp } from '../store/events.js';
import type { Project } from '../store/projects.js';
import type { ServiceContext } from './context.js';

export interface VerifyRequest {
  email_address: string;
  ipv4_address?: string;
  ipv6_address?: string;
  soft_check?: boolean;
  show_results?: boolean;
  show_steps?: boolean;
}

export interface VerifyResponse {
  action: Action;
  errors?: string[];
  warnings?: string[];
  checked_types?: string[];
  analyzed_data?: Record<string, unknown>;
  steps?: string[];
  [flagOrResult: string]: unknown;
}

export interface Evaluation {
  policy: CompiledPolicy;
  outcome: RunOutcome;
  response: VerifyResponse;
}

/** Runs the project's policy on one request and builds the response (nothing is stored). */
export async function evaluate(ctx: ServiceContext, policy: CompiledPolicy, project: Project, request: VerifyRequest): Promise<Evaluation> {
  const services: RunServices = {
    velocity: ctx.store.events.velocityReader(project.id),
    network: ctx.network.forRequest({ persist: request.soft_check !== true, now: ctx.now() }),
    now: ctx.now,
    onPluginError: (plugin, error) => ctx.log.error({ err: error, plugin, project: project.id }, 'plugin failed; its facts are unknown'),
  };
  const outcome = await policy.runner.run({
    input: {
      email: request.email_address,
      ipv4: canonicalIp(request.ipv4_address),
      ipv6: canonicalIp(request.ipv6_address),
      softCheck: request.soft_check === true,
      projectId: project.id,
    },
    options: policy.options,
    services,
  });
  const decision = decide(policy, outcome.ruleResults);
  const response: VerifyResponse = { action: decision.action };

  const exposure = exposureOf(policy);
  for (const name of exposure.flags) response[name] = (await outcome.fact(name)) === true;
  if (request.show_results) {
    response.errors = decision.errors;
    response.warnings = decision.warnings;
    response.checked_types = exposure.checkedTypes;
    const analyzed: Record<string, unknown> = {};
    for (const name of exposure.analyzed) {
      const value = await outcome.fact(name);
      if (value !== null && value !== undefined) analyzed[name] = renderAnalyzed(value);
    }
    for (const name of exposure.results) {
      const value = await outcome.fact(name);
      if (value !== null && value !== undefined) response[name] = value;
    }
    response.analyzed_data = analyzed;
  }
  if (request.show_steps) response.steps = stepsRun(policy, outcome.pluginsRan);
  return { policy, outcome, response };
}

/** The verify operation: evaluate, record the event (committed), answer. */
export async function verify(ctx: ServiceContext, project: Project, request: VerifyRequest): Promise<VerifyResponse> {
  const policy = ctx.policies.forProject(project);
  const { outcome, response } = await evaluate(ctx, policy, project, request);
  const domain = await outcome.fact('domain');
  const emailLower = ((await outcome.fact('email_lower')) as string | null) ?? request.email_address.toLowerCase();
  await ctx.store.events.record({
    projectId: project.id,
    endpoint: 'verify',
    email: request.email_address,
    emailLower,
    baseEmail: ((await outcome.fact('base_email')) as string | null) ?? emailLower,
    domain: typeof domain === 'string' ? domain : null,
    ipv4: canonicalIp(request.ipv4_address),
    ipv6: canonicalIp(request.ipv6_address),
    action: response.action,
    policyRevision: policy.revision,
    createdAt: ctx.now(),
  });
  return response;
}

/** What a policy's response shows, by fact name: worked out once per compiled policy. */
interface Exposure {
  flags: string[];
  analyzed: string[];
  results: string[];
  checkedTypes: string[];
}

const exposures = new WeakMap<CompiledPolicy, Exposure>();

function exposureOf(policy: CompiledPolicy): Exposure {
  let exposure = exposures.get(policy);
  if (!exposure) {
    const facts = policy.enabledPlugins.flatMap((plugin) => Object.entries(plugin.facts));
    const named = (as: FactSpec['expose']) => facts.filter(([, spec]) => spec.expose === as).map(([name]) => name);
    exposure = {
      flags: named('flag'),
      analyzed: named('analyzed_data'),
      results: named('result'),
      checkedTypes: [...new Set(policy.checks.flatMap((c) => (c.checkedType ? [c.checkedType] : [])))],
    };
    exposures.set(policy, exposure);
  }
  return { ...exposure, checkedTypes: [...exposure.checkedTypes] };
}

/** analyzed_data renders every scalar as a string, as the spec's documented responses do. */
function renderAnalyzed(value: unknown): unknown {
  if (Array.isArray(value) || (typeof value === 'object' && value !== null)) return value;
  return String(value);
}

/**
 * Steps of the plugins that ran, in run order: a step that is a check counts when the policy
 * enables it; a step that is only a signal counts whenever its plugin ran.
 */
export function stepsRun(policy: CompiledPolicy, pluginsRan: readonly string[]): string[] {
  const enabled = new Set(policy.checks.map((c) => c.name));
  const steps: string[] = [];
  for (const id of pluginsRan) {
    const plugin = policy.runner.plugin(id);
    if (!plugin) continue;
    for (const step of plugin.steps) {
      if (step in plugin.checks ? enabled.has(step) : true) steps.push(step);
    }
  }
  return steps;
}

// POST /v1/public/verify without Koa: a request and a project in, a response out. Every call is
// recorded as an event, committed before the response is returned.
import createError from 'http-errors';
import { exposedAs } from '../engine/catalog.js';
import type { FactExposure, FingerprintInput } from '../engine/plugin.js';
import type { RunServices } from '../engine/run.js';
import type { CompiledPolicy } from '../policy/compile.js';
import type { Decision } from '../policy/decide.js';
import { type Evaluation, evaluate } from '../policy/evaluate.js';
import type { Explanation } from '../policy/explain.js';
import { canonicalIp, type NewEvent } from '../store/events.js';
import type { Project } from '../store/projects.js';
import { SOFT_CHECK_MARK } from '../store/replay-events.js';
import type { Action } from '../vocabulary.js';
import { runServices, type ServiceContext } from './context.js';
import { type CallContext, type Decided, newDecisionId, type PolicyTexts } from './decisions.js';
import { type FingerprintSealer, openFingerprintField } from './fingerprint.js';

export interface VerifyRequest {
  email_address: string;
  ipv4_address?: string;
  ipv6_address?: string;
  soft_check?: boolean;
  show_results?: boolean;
  show_steps?: boolean;
  /** Add `explain` (src/policy/explain.ts): sandbox projects and those named in EXPLAIN_PROJECTS only. */
  show_explain?: boolean;
  /** A token from POST /v1/fingerprint: its device hash becomes the `device` fact and is stored with the event. */
  fingerprint?: string;
}

export interface VerifyDeps {
  sealer: FingerprintSealer;
  /** Stores the text of each policy revision before the first event it decides. */
  texts: PolicyTexts;
}

export interface VerifyResponse {
  action: Action;
  errors?: string[];
  warnings?: string[];
  checked_types?: string[];
  analyzed_data?: Record<string, unknown>;
  steps?: string[];
  explain?: Explanation;
  [flagOrResult: string]: unknown;
}

export interface Answer {
  evaluation: Evaluation<Decision>;
  response: VerifyResponse;
}

export interface VerifyRun {
  projectId: string;
  device: string | null;
  /** The request's opened fingerprint token; absent where a run has none (bulk, playground, replay). */
  fingerprint?: FingerprintInput | null;
  /** History, lists, network and clock the plugins get (the bulk run gives no history). */
  services: RunServices;
}

/** The verify pipeline on one request with the services given: the evaluation and the response, nothing stored. */
export async function verifyWith(policy: CompiledPolicy, request: VerifyRequest, run: VerifyRun): Promise<Answer> {
  const input = {
    device: run.device,
    fingerprint: run.fingerprint ?? null,
    email: request.email_address,
    ipv4: canonicalIp(request.ipv4_address),
    ipv6: canonicalIp(request.ipv6_address),
    softCheck: request.soft_check === true,
    projectId: run.projectId,
  };
  const explain = request.show_explain === true;
  const evaluation = await evaluate(policy, input, run.services, explain ? { explain } : {});
  const { decision } = evaluation;
  const response: VerifyResponse = { action: decision.action };

  const exposure = exposureOf(policy);
  // Each group of facts is asked for at once (one wait, not one per fact; none when their plugins have
  // settled, as after nearly every run), the groups in this order: a fact read may run a plugin, and
  // checked_types counts the checks of the plugins that had run by then.
  const [flags, fields] = await groupsOf(evaluation, [exposure.flags, exposure.fields] as const);
  exposure.flags.forEach((name, i) => {
    response[name] = renderFlag(flags[i]);
  });
  exposure.fields.forEach((name, i) => {
    if (fields[i] !== null && fields[i] !== undefined) response[name] = fields[i];
  });
  if (request.show_results) {
    response.errors = decision.errors;
    response.warnings = decision.warnings;
    response.checked_types = await evaluation.checkedTypes();
    const [analyzedValues, results] = await groupsOf(evaluation, [exposure.analyzed, exposure.results] as const);
    exposure.results.forEach((name, i) => {
      if (results[i] !== null && results[i] !== undefined) response[name] = results[i];
    });
    response.analyzed_data = analyzedData(exposure, analyzedValues);
  }
  if (request.show_steps) response.steps = await evaluation.steps();
  if (evaluation.explanation) response.explain = evaluation.explanation;
  return { evaluation, response };
}

/** The facts an event stores besides the request's own fields. */
const EVENT_FACTS = ['domain', 'email_lower', 'base_email'] as const;

/** The verify operation: evaluate, record the event (committed), answer with the decision's id. */
export async function verify(
  ctx: ServiceContext,
  deps: VerifyDeps,
  project: Project,
  request: VerifyRequest,
  call: CallContext,
): Promise<Decided<VerifyResponse>> {
  const { response, event, policy } = await decide(ctx, deps, project, request, call);
  // Only the answer and its event wait for the commit: the run's facts and results (a few hundred objects)
  // are garbage by now, not carried through the scavenges of the wait.
  const storing = deps.texts.remembered(policy);
  if (storing) await storing;
  await ctx.store.events.record(event);
  return { body: response, decisionId: event.decisionId as string };
}

/** The answer, the event that records it and the policy that decided. */
async function decide(
  ctx: ServiceContext,
  deps: VerifyDeps,
  project: Project,
  request: VerifyRequest,
  call: CallContext,
): Promise<{ response: VerifyResponse; event: NewEvent; policy: CompiledPolicy }> {
  if (request.show_explain) assertMayExplain(ctx, project);
  const fingerprint = openFingerprintField(deps.sealer, request.fingerprint, project.id, ctx.now());
  const device = fingerprint?.device ?? null;
  const policy = ctx.policies.forProject(project);
  // soft_check: domain facts (DNS, registration, website answers) are not stored.
  const services = runServices(ctx, project, request.soft_check !== true);
  const { evaluation, response } = await verifyWith(policy, request, { projectId: project.id, device, fingerprint: fingerprint?.input ?? null, services });
  const [[[domain, lower, base]], recorded] = await Promise.all([groupsOf(evaluation, [EVENT_FACTS] as const), evaluation.recorded()]);
  const emailLower = typeof lower === 'string' ? lower : request.email_address.toLowerCase();
  const event: NewEvent = {
    projectId: project.id,
    endpoint: 'verify',
    email: request.email_address,
    emailLower,
    baseEmail: typeof base === 'string' ? base : emailLower,
    domain: typeof domain === 'string' ? domain : null,
    ipv4: canonicalIp(request.ipv4_address),
    ipv6: canonicalIp(request.ipv6_address),
    device,
    fingerprintToken: fingerprint?.input.token ?? null,
    action: response.action,
    riskScore: Number.isSafeInteger(response.risk_score) ? (response.risk_score as number) : null,
    decisionId: newDecisionId(),
    requestId: call.requestId,
    policyName: policy.name,
    policyRevision: policy.revision,
    errors: evaluation.decision.errors,
    warnings: evaluation.decision.warnings,
    recordedFacts: request.soft_check === true ? withoutDomainFacts(policy, recorded) : recorded,
    createdAt: ctx.now(),
    countsTowardQuota: !project.sandbox,
  };
  return { response, event, policy };
}

/** soft_check: the history facts (analytics) are kept, the network plugins' answers about the domain are not, and the mark tells replay why. */
function withoutDomainFacts(policy: CompiledPolicy, recorded: Record<string, unknown>): Record<string, unknown> {
  const kept: Record<string, unknown> = { [SOFT_CHECK_MARK]: true };
  for (const name in recorded) if (policy.catalog.owner.get(name)?.network !== true) kept[name] = recorded[name];
  return kept;
}

/** show_explain shows the policy's internals (its checks, rules and thresholds): a testing aid, not for every caller. */
function assertMayExplain(ctx: ServiceContext, project: Project): void {
  if (project.sandbox || ctx.config.explainProjects.includes(project.name) || ctx.config.explainProjects.includes(project.id)) return;
  throw createError(
    400,
    "show_explain: accepted only for sandbox projects and for the projects named in EXPLAIN_PROJECTS (it shows the policy's checks, rules and thresholds)",
  );
}

/** The values of each group of facts, with one wait for all. */
function groupsOf<G extends ReadonlyArray<readonly string[]>>(evaluation: Evaluation<Decision>, groups: G): Promise<{ [K in keyof G]: unknown[] }> {
  return Promise.all(groups.map((names) => evaluation.facts(names))) as Promise<{ [K in keyof G]: unknown[] }>;
}

/** What a policy's response shows, by fact name: worked out once per compiled policy. */
interface Exposure {
  flags: string[];
  analyzed: string[];
  results: string[];
  fields: string[];
  /** analyzed_data's templates, by the pattern of values present (see analyzedData). */
  analyzedShapes: Map<number, Readonly<Record<string, null>>>;
}

/** Patterns of present values given a template of their own, per policy; past this, analyzed_data is built key by key. */
const MAX_ANALYZED_SHAPES = 64;
/** A pattern is a number with a bit per analyzed name: exact up to 2^53. */
const MAX_PATTERN_NAMES = 52;

/**
 * analyzed_data: the values present, rendered, under their names in exposure order. Built from {} key by key,
 * an object of more than a dozen keys becomes a dictionary in V8 (a keyed store adds no hidden class past that),
 * whose inserts and JSON.stringify cost about 2.7 µs more per answer (scratch, 30 values: 1.2 + 2.2 µs against
 * 0.4 + 1.4). A spread copy of a template with the same keys in the same order keeps the template's fast shape.
 */
function analyzedData(exposure: Exposure, values: readonly unknown[]): Record<string, unknown> {
  const names = exposure.analyzed;
  const present = (i: number) => values[i] !== null && values[i] !== undefined;
  let shape: Readonly<Record<string, null>> | undefined;
  if (names.length <= MAX_PATTERN_NAMES) {
    let pattern = 0;
    for (let i = 0; i < names.length; i++) pattern = pattern * 2 + (present(i) ? 1 : 0);
    shape = exposure.analyzedShapes.get(pattern);
    if (shape === undefined && exposure.analyzedShapes.size < MAX_ANALYZED_SHAPES) {
      shape = Object.fromEntries(names.filter((_name, i) => present(i)).map((name) => [name, null]));
      exposure.analyzedShapes.set(pattern, shape);
    }
  }
  const analyzed: Record<string, unknown> = shape ? { ...shape } : {};
  for (let i = 0; i < names.length; i++) if (present(i)) analyzed[names[i] as string] = renderAnalyzed(values[i]);
  return analyzed;
}

const exposures = new WeakMap<CompiledPolicy, Exposure>();

/** The top-level response fields a policy can show with show_results (flags, fields, results), in response order. */
export function responseFieldsOf(policy: CompiledPolicy): string[] {
  const exposure = exposureOf(policy);
  return [...exposure.flags, ...exposure.fields, ...exposure.results];
}

/** The top-level fields only show_results adds (corrected_email, punycode_email …). */
export function resultFieldsOf(policy: CompiledPolicy): readonly string[] {
  return exposureOf(policy).results;
}

function exposureOf(policy: CompiledPolicy): Exposure {
  let exposure = exposures.get(policy);
  if (!exposure) {
    const facts = policy.enabledPlugins.flatMap((plugin) => Object.entries(plugin.facts));
    const named = (as: FactExposure) => facts.filter(([, spec]) => exposedAs(spec, as)).map(([name]) => name);
    exposure = {
      flags: named('flag'),
      analyzed: named('analyzed_data'),
      results: named('result'),
      fields: named('field'),
      analyzedShapes: new Map(),
    };
    exposures.set(policy, exposure);
  }
  return exposure;
}

/** A flag is true or false when its check could tell, null when it could not ("not checked": no IP, no domain). */
function renderFlag(value: unknown): boolean | null {
  return typeof value === 'boolean' ? value : null;
}

/** analyzed_data renders every scalar as a string, as the spec's documented responses do. */
function renderAnalyzed(value: unknown): unknown {
  if (Array.isArray(value) || (typeof value === 'object' && value !== null)) return value;
  return String(value);
}

// The policy playground (/playground): a sandbox project's policy source, and one address decided by a
// policy text compiled aside: never stored, never cached, no event recorded. The address runs through the
// verify pipeline with the project's history, lists and network settings, as a verify call would, but
// the network answers are not stored (as with soft_check). With `replay`, the text re-decides the project's
// stored events beside their labels (playground-replay.ts).
import { readFileSync } from 'node:fs';
import createError from 'http-errors';
import { type CompiledPolicy, compilePolicy } from '../policy/compile.js';
import { PolicyError, PolicyLimitError, type PolicyProblem } from '../policy/errors.js';
import { policyRevision } from '../policy/load.js';
import type { Project } from '../store/projects.js';
import { runServices, type ServiceContext } from './context.js';
import { type PlaygroundReplay, playgroundReplay } from './playground-replay.js';
import { type VerifyResponse, verifyWith } from './verify.js';

export interface PlaygroundPolicy {
  project: string;
  /** The policy's name (a file in the policies folders, or the label of a stored source). */
  policy: string;
  source: string;
  /** The revision of `source` (its content hash). */
  revision: string;
  /** The revision the project's requests are decided by: another one when the file changed since it was loaded; null when its stored text does not compile. */
  in_use: string | null;
}

export interface PlaygroundRequest {
  policy: string;
  /** Without it the policy is only compiled (the page checks each edit before an address is typed). */
  email_address?: string;
  ipv4_address?: string;
  ipv6_address?: string;
  /** Also re-decide the project's stored verify events with the text, beside their labels. */
  replay?: boolean;
}

/** Either the problems that keep the text from compiling, or the verify answer it gives (and its replay, when asked). */
export type PlaygroundAnswer =
  | { compiled: false; problems: Omit<PolicyProblem, 'file'>[] }
  | { compiled: true; revision: string; result?: VerifyResponse; replay?: PlaygroundReplay };

/** The playground shows a policy's internals and runs any text: sandbox projects only. */
export function assertPlayground(project: Project): void {
  if (project.sandbox) return;
  throw createError(
    403,
    `the playground accepts only the access token of a sandbox project; "${project.name}" is not one: create one with \`email-trust project create --name NAME --sandbox\` and use its access token`,
  );
}

/**
 * The source of the project's policy: its stored text (even one that does not compile: the playground is
 * where it gets fixed), or the file of its named policy.
 */
export function playgroundPolicy(ctx: ServiceContext, project: Project): PlaygroundPolicy {
  assertPlayground(project);
  let inUse: CompiledPolicy | null = null;
  try {
    inUse = ctx.policies.forProject(project);
  } catch (error) {
    if (!(error instanceof PolicyError) || project.policySource === null) throw error;
  }
  const source = project.policySource ?? readFileSync((inUse as CompiledPolicy).file, 'utf8');
  // A file edited since it was loaded shows a revision other than in_use.
  const revision = policyRevision(source);
  return { project: project.name, policy: inUse?.name ?? project.policy, source, revision, in_use: inUse?.revision ?? null };
}

/** One address through `request.policy`, checked on the policy check thread and compiled aside. */
export async function playgroundEvaluate(ctx: ServiceContext, project: Project, request: PlaygroundRequest): Promise<PlaygroundAnswer> {
  assertPlayground(project);
  let compiled: CompiledPolicy;
  try {
    compiled = compilePolicy(await ctx.policyChecks.check({ name: 'playground', file: 'playground', text: request.policy }), ctx.catalog);
  } catch (error) {
    // A text past a limit is refused as a request, not shown as problems of a policy being written.
    if (error instanceof PolicyLimitError) throw createError(400, error.describe());
    if (!(error instanceof PolicyError)) throw error;
    return { compiled: false, problems: error.problems.map(({ file: _file, ...where }) => where) };
  }
  const replay = request.replay === true ? { replay: await playgroundReplay(ctx, project, compiled) } : {};
  if (request.email_address === undefined) return { compiled: true, revision: compiled.revision, ...replay };
  const services = runServices(ctx, project, false);
  const { response } = await verifyWith(
    compiled,
    {
      email_address: request.email_address,
      ...(request.ipv4_address ? { ipv4_address: request.ipv4_address } : {}),
      ...(request.ipv6_address ? { ipv6_address: request.ipv6_address } : {}),
      show_results: true,
      show_steps: true,
      show_explain: true,
    },
    { projectId: project.id, device: null, services },
  );
  return { compiled: true, revision: compiled.revision, result: response, ...replay };
}

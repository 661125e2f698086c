import type { Command } from 'commander';
import { registry } from '../../../plugins/index.js';
import { loadConfig } from '../../config.js';
import { FactCatalog } from '../../engine/catalog.js';
import { PolicyBook } from '../../policy/book.js';
import type { CompiledPolicy } from '../../policy/compile.js';
import { formatProblem, PolicyError, type PolicyProblem } from '../../policy/errors.js';
import { renderExplanation, renderFired } from '../../policy/explain.js';
import { loadPolicy } from '../../policy/load.js';
import { policyFolders } from '../../policy/named-policies.js';
import { explainAddress, explainEvent, type Fixtures, FixturesError, readFixtures } from '../../service/policy-explain.js';
import { replayTestsOf, runReplayTests } from '../../service/policy-replay-tests.js';
import { runPolicyTests } from '../../service/policy-tests.js';
import type { Store } from '../../store/database.js';
import type { StoredDecision } from '../../store/decisions.js';
import type { Project } from '../../store/projects.js';
import { TestsFailedError, UsageError } from '../errors.js';
import { policyArgument } from '../policy-argument.js';
import { findProject } from '../projects.js';
import { withStore } from '../with-store.js';
import { findEvent } from './decisions.js';
import { addPolicyReplayCommand } from './policy-replay.js';

/** POLICIES_DIR, read when a command is given a policy by name (a file needs no configuration). */
const policiesDirOf = () => loadConfig().policiesDir;

export function addPolicyCommands(program: Command): void {
  const policy = program.command('policy').description('work with policies');
  policy
    .command('check')
    .description('validate policies (default: every policy in POLICIES_DIR and the shipped ones); exit 3 when one is invalid')
    .argument('[policies...]', 'policy files or names')
    .option('--strict', 'treat warnings (what a policy may not mean as written) as errors: exit 3 when there is one', false)
    .action(checkPolicies);
  policy
    .command('test')
    .description(
      'run the tests written in policies, and the replay tests in replay-tests/<name>.yaml beside each (default: every policy in POLICIES_DIR and the shipped ones); exit 4 when one fails',
    )
    .argument('[policies...]', 'policy files or names')
    .action(testPolicies);
  policy
    .command('explain')
    .description(
      'explain the action a policy gives one address (--policy and --email), or why a stored decision got its action (--project and --event): each exemption, check and rule, the facts it saw, why the action won',
    )
    .option(
      '--policy <policy>',
      'a policy file, or a policy name from POLICIES_DIR or the shipped ones (with --event: a candidate instead of the revision that decided)',
    )
    .option('--email <address>', 'the address to verify')
    .option('--ipv4 <address>', "the caller's IPv4 address")
    .option('--ipv6 <address>', "the caller's IPv6 address")
    .option(
      '--fixtures <file>',
      'history:, labels:, network: and blocklists: answers, as a policy test declares them (default: none, network checks not checked)',
    )
    .option('--project <name-or-id>', 'with --event: the project the event belongs to')
    .option('--event <id>', 'a stored decision: its X-Decision-Id, or its event id (`email-trust events list`); replayed on the facts it recorded')
    .option('--json', 'print the explanation as JSON (the `explain` of a verify response)', false)
    .action(explainPolicy);
  addPolicyReplayCommand(policy);
}

interface ExplainOptions {
  policy?: string;
  email?: string;
  ipv4?: string;
  ipv6?: string;
  fixtures?: string;
  project?: string;
  event?: string;
  json: boolean;
}

async function explainPolicy(opts: ExplainOptions): Promise<void> {
  if (opts.event !== undefined || opts.project !== undefined) return explainStoredEvent(opts);
  if (opts.policy === undefined || opts.email === undefined) {
    throw new UsageError('policy explain needs --policy and --email (an address), or --project and --event (a stored decision)');
  }
  const compiled = policyArgument(opts.policy, policiesDirOf, new FactCatalog(registry));
  let fixtures: Fixtures = {};
  if (opts.fixtures) {
    try {
      fixtures = readFixtures(opts.fixtures);
    } catch (error) {
      if (error instanceof FixturesError) throw new UsageError(error.message);
      throw error;
    }
  }
  const input = { email_address: opts.email, ...(opts.ipv4 ? { ipv4_address: opts.ipv4 } : {}), ...(opts.ipv6 ? { ipv6_address: opts.ipv6 } : {}) };
  const explanation = await explainAddress(compiled, input, fixtures);
  console.log(opts.json ? JSON.stringify(explanation, null, 2) : renderExplanation(explanation));
}

/** `policy explain --project P --event ID [--policy CANDIDATE]`: a stored decision replayed on its recorded facts, explained. */
async function explainStoredEvent(opts: ExplainOptions): Promise<void> {
  if (opts.project === undefined || opts.event === undefined)
    throw new UsageError('--event and --project go together: the event, and the project it belongs to');
  const given = (['email', 'ipv4', 'ipv6', 'fixtures'] as const).filter((name) => opts[name] !== undefined);
  if (given.length > 0) throw new UsageError(`--event replays what the event stored: leave out --${given.join(', --')}`);
  const catalog = new FactCatalog(registry);
  const candidate = opts.policy === undefined ? null : policyArgument(opts.policy, policiesDirOf, catalog);
  await withStore(async (store) => {
    const project = await findProject(store, opts.project as string);
    const event = await projectEvent(store, project, opts.event as string);
    const policy = candidate ?? (await decidingPolicy(store, event, catalog));
    const { explanation, not_recorded } = await explainEvent(policy, event, store.projectLists.reader(project));
    const under = candidate ? 'candidate' : 'deciding';
    if (opts.json) {
      console.log(
        JSON.stringify({ event: eventHeader(event), policy: { name: policy.name, revision: policy.revision, as: under }, not_recorded, explanation }, null, 2),
      );
      return;
    }
    const lines = [
      `event ${event.id}${event.decisionId ? ` (decision ${event.decisionId})` : ''} of project ${project.name}, ${new Date(event.createdAt).toISOString()}: ${event.endpoint} ${event.email} -> ${event.action}`,
      `  decided by policy ${event.policyName ?? '(unnamed)'} revision ${event.policyRevision ?? '(unknown)'}; errors: ${event.errors.join(', ') || '(none)'}; warnings: ${event.warnings.join(', ') || '(none)'}`,
      candidate
        ? `replayed under candidate ${policy.name} (revision ${policy.revision}) on the facts it recorded: ${explanation.action}${explanation.action === event.action ? ' (unchanged)' : ` (was ${event.action})`}`
        : `replayed under the revision that decided it, on the facts it recorded: ${explanation.action}${explanation.action === event.action ? '' : ` (stored ${event.action}: the project's lists changed since, or a fact was not recorded)`}`,
    ];
    if (not_recorded.length > 0) lines.push(`not recorded with the event, so unknown here: ${not_recorded.join(', ')}`);
    console.log(`${lines.join('\n')}\n\n${renderExplanation(explanation)}`);
  });
}

/** An event of the project by its decision id or its event id; a UsageError naming what was not found. */
async function projectEvent(store: Store, project: Project, id: string): Promise<StoredDecision> {
  const event = await findEvent(store, id);
  if (event === null || event.projectId !== project.id) {
    throw new UsageError(
      `no event "${id}" in project ${project.name}: give its X-Decision-Id or its id from \`email-trust events list --project ${project.name}\``,
    );
  }
  return event;
}

/** The policy revision that decided the event, compiled from its stored text. */
async function decidingPolicy(store: Store, event: StoredDecision, catalog: FactCatalog): Promise<CompiledPolicy> {
  const revision = event.policyRevision;
  const stored = revision && !revision.startsWith('custom:') ? await store.policyRevisions.get(revision) : null;
  if (!stored) {
    const why = revision?.startsWith('custom:')
      ? 'it was decided by a custom_policy'
      : `its policy revision ${revision ?? '(none)'} was not kept (events stored before revisions were)`;
    throw new UsageError(`event ${event.id} cannot be replayed as decided: ${why}; give --policy NAME|FILE to explain it under a policy of your choice`);
  }
  return loadPolicy({ name: stored.name, file: `${stored.name}@${stored.revision}`, text: stored.source }, catalog);
}

function eventHeader(event: StoredDecision) {
  return {
    id: event.id,
    decision_id: event.decisionId,
    created_at: new Date(event.createdAt).toISOString(),
    endpoint: event.endpoint,
    email: event.email,
    action: event.action,
    errors: event.errors,
    warnings: event.warnings,
    policy: event.policyName,
    revision: event.policyRevision,
  };
}

function checkPolicies(files: string[], opts: { strict: boolean }): void {
  const catalog = new FactCatalog(registry);
  let warnings: PolicyProblem[];
  if (files.length === 0) {
    const { policiesDir } = loadConfig();
    const book = PolicyBook.load(policiesDir, catalog);
    warnings = book.names().flatMap((name) => book.byName(name)?.warnings ?? []);
    // Under --strict a warning is an error: no "ok" for what fails.
    if (!opts.strict || warnings.length === 0) {
      console.log(`ok: ${book.names().length} policies in ${policyFolders(policiesDir)} (${book.names().join(', ')})${warningCount(warnings)}`);
    }
  } else {
    warnings = [];
    const problems = files.flatMap((file) => {
      try {
        const compiled = policyArgument(file, policiesDirOf, catalog);
        warnings.push(...compiled.warnings);
        if (!opts.strict || compiled.warnings.length === 0) {
          console.log(
            `ok: ${file} (${compiled.checks.length} checks, ${compiled.ruleCount} rules, revision ${compiled.revision})${warningCount(compiled.warnings)}`,
          );
        }
        return [];
      } catch (error) {
        if (error instanceof PolicyError) return error.problems;
        if (error instanceof UsageError) throw error;
        throw new UsageError(`${file}: ${(error as Error).message}`);
      }
    });
    if (problems.length > 0) throw new PolicyError(problems);
  }
  if (opts.strict && warnings.length > 0) throw new PolicyError(warnings.map((w) => ({ ...w, message: `warning (--strict): ${w.message}` })));
  for (const warning of warnings) console.error(`${formatProblem({ ...warning, message: `warning: ${warning.message}` })}`);
}

function warningCount(warnings: readonly PolicyProblem[]): string {
  return warnings.length === 0 ? '' : `, ${warnings.length} warning${warnings.length === 1 ? '' : 's'}`;
}

async function testPolicies(files: string[]): Promise<void> {
  const catalog = new FactCatalog(registry);
  let policies: CompiledPolicy[];
  if (files.length === 0) {
    const book = PolicyBook.load(loadConfig().policiesDir, catalog);
    policies = book.names().map((name) => book.byName(name) as CompiledPolicy);
  } else {
    policies = files.map((file) => policyArgument(file, policiesDirOf, catalog));
  }
  let failed = 0;
  let total = 0;
  for (const compiled of policies) {
    for (const result of await runPolicyTests(compiled)) {
      total += 1;
      console.log(`${result.passed ? 'PASS' : 'FAIL'}  ${compiled.name}: ${result.test.name}`);
      for (const failure of result.failures) console.log(`      ${failure}`);
      const expected = [...(result.test.expected.fired ?? []), ...(result.test.expected.exemptions ?? [])];
      if (result.explanation) console.log(renderFired(result.explanation, '      ', expected));
      if (!result.passed) failed += 1;
    }
    const suite = replayTestsOf(compiled);
    for (const result of suite ? await runReplayTests(compiled, suite) : []) {
      total += 1;
      console.log(`${result.passed ? 'PASS' : 'FAIL'}  ${compiled.name}: replay: ${result.test.name}`);
      for (const failure of result.failures) console.log(`      ${failure}`);
      if (!result.passed) failed += 1;
    }
  }
  console.log(`${total - failed} passed, ${failed} failed`);
  if (failed > 0) throw new TestsFailedError(`${failed} policy test(s) failed`);
}

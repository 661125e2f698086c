import type { Command } from 'commander';
import { registry } from '../../../plugins/index.js';
import { loadConfig } from '../../config.js';
import { FactCatalog } from '../../engine/catalog.js';
import { PolicyBook } from '../../policy/book.js';
import type { CompiledPolicy } from '../../policy/compile.js';
import { formatProblem, PolicyError, type PolicyProblem } from '../../policy/errors.js';
import { renderExplanation, renderFired } from '../../policy/explain.js';
import { policyFolders } from '../../policy/named-policies.js';
import { explainAddress, type Fixtures, FixturesError, readFixtures } from '../../service/policy-explain.js';
import { runPolicyTests } from '../../service/policy-tests.js';
import { TestsFailedError, UsageError } from '../errors.js';
import { policyArgument } from '../policy-argument.js';
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
    .description('run the tests written in policies (default: every policy in POLICIES_DIR and the shipped ones); exit 4 when one fails')
    .argument('[policies...]', 'policy files or names')
    .action(testPolicies);
  policy
    .command('explain')
    .description('explain the action a policy gives one address: each check and rule, the facts it saw, why the action won')
    .requiredOption('--policy <policy>', 'a policy file, or a policy name from POLICIES_DIR or the shipped ones')
    .requiredOption('--email <address>', 'the address to verify')
    .option('--ipv4 <address>', "the caller's IPv4 address")
    .option('--ipv6 <address>', "the caller's IPv6 address")
    .option('--fixtures <file>', 'history: and network: answers, as a policy test declares them (default: none, network checks not checked)')
    .option('--json', 'print the explanation as JSON (the `explain` of a verify response)', false)
    .action(explainPolicy);
  addPolicyReplayCommand(policy);
}

async function explainPolicy(opts: { policy: string; email: string; ipv4?: string; ipv6?: string; fixtures?: string; json: boolean }): Promise<void> {
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

function checkPolicies(files: string[], opts: { strict: boolean }): void {
  const catalog = new FactCatalog(registry);
  let warnings: PolicyProblem[];
  if (files.length === 0) {
    const { policiesDir } = loadConfig();
    const book = PolicyBook.load(policiesDir, catalog);
    warnings = book.names().flatMap((name) => book.byName(name)?.warnings ?? []);
    console.log(`ok: ${book.names().length} policies in ${policyFolders(policiesDir)} (${book.names().join(', ')})${warningCount(warnings)}`);
  } else {
    warnings = [];
    const problems = files.flatMap((file) => {
      try {
        const compiled = policyArgument(file, policiesDirOf, catalog);
        warnings.push(...compiled.warnings);
        console.log(
          `ok: ${file} (${compiled.checks.length} checks, ${compiled.ruleCount} rules, revision ${compiled.revision})${warningCount(compiled.warnings)}`,
        );
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
  }
  console.log(`${total - failed} passed, ${failed} failed`);
  if (failed > 0) throw new TestsFailedError(`${failed} policy test(s) failed`);
}

// The `email-trust` command: one module per command group under commands/; here the program, the
// exit codes and how each kind of error is printed. Exit codes: 0 done, 1 failed, 2 bad arguments
// or configuration, 3 invalid policy, 4 policy tests failed (as `cerbos compile` does), 130 interrupted.
import { Command, CommanderError } from 'commander';
import { ConfigError } from '../config.js';
import { packageVersion } from '../paths.js';
import { formatProblem, PolicyError } from '../policy/errors.js';
import { addDataCommand } from './commands/data.js';
import { addEventsCommands } from './commands/events.js';
import { addFactsCommand } from './commands/facts.js';
import { addFeedbackCommands } from './commands/feedback.js';
import { addKeyCommands } from './commands/key.js';
import { addMigrateCommand } from './commands/migrate.js';
import { addPolicyCommands } from './commands/policy.js';
import { addProjectCommands } from './commands/project.js';
import { addRdapCommands } from './commands/rdap.js';
import { addServeCommand } from './commands/serve.js';
import { addVerifyCommand } from './commands/verify.js';
import { InterruptedError, TestsFailedError, UsageError } from './errors.js';

export const EXIT = { ok: 0, failed: 1, usage: 2, invalidPolicy: 3, testsFailed: 4, interrupted: 130 } as const;

export function buildProgram(): Command {
  const program = new Command('email-trust')
    .description('Self-hostable email trust verification: policy-as-data checks on email addresses, IPs and velocity.')
    .version(packageVersion(), '-V, --version', 'print the version of email-trust')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  addServeCommand(program);
  addMigrateCommand(program);
  addProjectCommands(program);
  addKeyCommands(program);
  addPolicyCommands(program);
  addFactsCommand(program);
  addDataCommand(program);
  addVerifyCommand(program);
  addEventsCommands(program);
  addFeedbackCommands(program);
  addRdapCommands(program);
  return program;
}

export async function main(argv: string[]): Promise<number> {
  try {
    await buildProgram().parseAsync(argv, { from: 'user' });
    return EXIT.ok;
  } catch (error) {
    return report(error);
  }
}

/** Prints what went wrong for the person at the terminal; returns the exit code. */
function report(error: unknown): number {
  if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
  if (error instanceof PolicyError) {
    for (const problem of error.problems) console.error(formatProblem(problem));
    console.error(`invalid policy: ${error.problems.length} problem(s); fix them and run \`email-trust policy check\``);
    return EXIT.invalidPolicy;
  }
  if (error instanceof ConfigError) {
    console.error(`configuration error: ${error.message}`);
    return EXIT.usage;
  }
  if (error instanceof InterruptedError) {
    console.error(error.message);
    return EXIT.interrupted;
  }
  console.error(`error: ${(error as Error).message ?? String(error)}`);
  if (error instanceof UsageError) return EXIT.usage;
  if (error instanceof TestsFailedError) return EXIT.testsFailed;
  return EXIT.failed;
}

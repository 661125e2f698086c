// The `email-trust` command. Exit codes: 0 done, 1 failed, 2 bad arguments or configuration,
// 3 invalid policy (as `cerbos compile` does).
import { existsSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { basename, resolve } from 'node:path';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { registry } from '../../plugins/index.js';
import { ConfigError, loadConfig } from '../config.js';
import { FactCatalog } from '../engine/catalog.js';
import { PolicyBook } from '../policy/book.js';
import { type CompiledPolicy, compilePolicy } from '../policy/compile.js';
import { formatProblem, PolicyError } from '../policy/errors.js';
import { parsePolicy } from '../policy/load.js';
import { runPolicyTests } from '../service/policy-tests.js';
import { startRetention } from '../service/retention.js';
import { openDatabase, type Store } from '../store/database.js';
import { KEY_KINDS, type KeyKind } from '../store/keys.js';
import { type Project, ProjectNameTakenError } from '../store/projects.js';
import { composeService } from './compose.js';
import { type CreatedProject, createProjectWithKeys, ensureDemoProject, printCreated } from './projects.js';

const RETENTION_INTERVAL_MS = 10 * 60_000;

export const EXIT = { ok: 0, failed: 1, usage: 2, invalidPolicy: 3, testsFailed: 4 } as const;

/** An error whose message is meant for the person at the terminal, with its exit code. */
class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.failed,
  ) {
    super(message);
  }
}

function projectName(value: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/.test(value)) {
    throw new InvalidArgumentError('a project name is 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit');
  }
  return value;
}

async function withStore<T>(work: (store: Store) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const store = await openDatabase(config.databaseUrl);
  try {
    await store.migrate();
    return await work(store);
  } finally {
    await store.close();
  }
}

async function findProject(store: Store, nameOrId: string): Promise<Project> {
  const project = (await store.projects.getByName(nameOrId)) ?? (await store.projects.get(nameOrId));
  if (!project) throw new CliError(`no project named or with id "${nameOrId}"; see \`email-trust project list\``, EXIT.usage);
  return project;
}

/** A policy name from policies/, or a file whose content is stored with the project. */
function resolvePolicy(nameOrFile: string): { policy: string; policySource: string | null } {
  const catalog = new FactCatalog(registry);
  const { policiesDir } = loadConfig();
  const book = PolicyBook.load(policiesDir, catalog);
  if (book.byName(nameOrFile)) return { policy: nameOrFile, policySource: null };
  const file = resolve(nameOrFile);
  if (!existsSync(file)) {
    throw new CliError(`--policy: "${nameOrFile}" is neither a policy in ${policiesDir} (${book.names().join(', ')}) nor a file`, EXIT.usage);
  }
  const text = readFileSync(file, 'utf8');
  compilePolicy(basename(file), parsePolicy(file, text), catalog);
  return { policy: basename(file).replace(/\.ya?ml$/, ''), policySource: text };
}

export function buildProgram(): Command {
  const program = new Command('email-trust')
    .description('Self-hostable email trust verification: policy-as-data checks on email addresses, IPs and velocity.')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();

  program
    .command('serve')
    .description('start the HTTP service (env: PORT, HOST, DATABASE_URL, POLICIES_DIR, LOG_LEVEL, TRUST_PROXY, RATE_LIMIT_*, FINGERPRINT_KEYS)')
    .action(async () => {
      const config = loadConfig();
      const service = await composeService(config);
      const demo = await ensureDemoProject(service.store);
      const retention = startRetention(service.store, {
        retentionDays: config.velocityRetentionDays,
        intervalMs: RETENTION_INTERVAL_MS,
        now: Date.now,
        log: service.log,
      });
      const server = service.app.listen(config.port, config.host);
      await new Promise<void>((done, fail) => server.once('listening', done).once('error', fail));
      const { port } = server.address() as AddressInfo;
      const base = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
      service.log.info({ base, database: config.databaseUrl, policies: service.policies.names() }, 'email-trust is listening');
      if (demo) printCreated(demo, base);
      const stop = async (signal: string) => {
        service.log.info({ signal }, 'stopping: finishing requests in flight');
        retention.stop();
        server.close();
        await service.close();
        process.exit(EXIT.ok);
      };
      process.once('SIGINT', () => void stop('SIGINT'));
      process.once('SIGTERM', () => void stop('SIGTERM'));
    });

  program
    .command('migrate')
    .description('bring the database (DATABASE_URL) up to date')
    .action(async () => {
      await withStore(async () => undefined);
      console.log(`database ${loadConfig().databaseUrl} is up to date`);
    });

  const project = program.command('project').description('manage projects');
  project
    .command('create')
    .description('create a project and print its three new keys (shown once)')
    .requiredOption('--name <name>', 'project name (unique)', projectName)
    .option('--sandbox', 'a sandbox project: its calls do not count toward quota and it may send custom_policy', false)
    .option('--policy <name-or-file>', 'a policy in policies/ by name, or a YAML file (its content is stored with the project)', 'default')
    .option('--json', 'print one JSON object on stdout', false)
    .action(async (opts: { name: string; sandbox: boolean; policy: string; json: boolean }) => {
      const policy = resolvePolicy(opts.policy);
      const created: CreatedProject = await withStore((store) =>
        createProjectWithKeys(store, { name: opts.name, sandbox: opts.sandbox, ...policy }).catch((error: unknown) => {
          if (error instanceof ProjectNameTakenError) throw new CliError(`--name: a project named "${opts.name}" already exists`, EXIT.usage);
          throw error;
        }),
      );
      if (opts.json) console.log(JSON.stringify(created));
      else printCreated(created);
    });
  project
    .command('list')
    .description('list projects')
    .option('--json', 'print a JSON array on stdout', false)
    .action(async (opts: { json: boolean }) => {
      const projects = await withStore((store) => store.projects.list());
      if (opts.json) return console.log(JSON.stringify(projects.map(projectJson)));
      if (projects.length === 0) return console.log('no projects yet: create one with `email-trust project create --name NAME`');
      for (const p of projects) console.log(`${p.id}  ${p.name}${p.sandbox ? '  (sandbox)' : ''}  policy=${p.policy}${p.policySource ? ' (from file)' : ''}`);
    });

  const key = program.command('key').description('manage API keys (stored only as SHA-256 hashes)');
  key
    .command('create')
    .description('create a key for a project and print it (shown once)')
    .requiredOption('--project <name-or-id>', 'the project')
    .addOption(new Option('--kind <kind>', 'kind of key').choices(KEY_KINDS).makeOptionMandatory())
    .option('--json', 'print one JSON object on stdout', false)
    .action(async (opts: { project: string; kind: KeyKind; json: boolean }) => {
      const created = await withStore(async (store) => store.keys.create((await findProject(store, opts.project)).id, opts.kind));
      if (opts.json)
        return console.log(JSON.stringify({ id: created.key.id, kind: created.key.kind, project_id: created.key.projectId, token: created.token }));
      console.log(`created ${created.key.kind} ${created.key.id} (shown once, keep it):\n  ${created.token}`);
    });
  key
    .command('list')
    .description("list a project's keys (hints only; tokens are never stored)")
    .requiredOption('--project <name-or-id>', 'the project')
    .option('--json', 'print a JSON array on stdout', false)
    .action(async (opts: { project: string; json: boolean }) => {
      const keys = await withStore(async (store) => store.keys.list((await findProject(store, opts.project)).id));
      if (opts.json) return console.log(JSON.stringify(keys));
      for (const k of keys) {
        console.log(
          `${k.id}  ${k.kind.padEnd(12)}  ${k.hint}…  created ${new Date(k.createdAt).toISOString()}${k.revokedAt ? `  REVOKED ${new Date(k.revokedAt).toISOString()}` : ''}`,
        );
      }
    });
  key
    .command('revoke')
    .description('revoke a key by id (takes effect within 5 seconds on running services)')
    .argument('<key-id>', 'the key id, from `email-trust key list`')
    .action(async (id: string) => {
      const revoked = await withStore((store) => store.keys.revoke(id));
      if (!revoked) throw new CliError(`no live key with id "${id}"; see \`email-trust key list --project NAME\``, EXIT.usage);
      console.log(`revoked ${id}`);
    });

  const policy = program.command('policy').description('work with policies');
  policy
    .command('check')
    .description('validate policies (default: every file in policies/); exit 3 when one is invalid')
    .argument('[files...]', 'policy files to check')
    .action((files: string[]) => {
      const catalog = new FactCatalog(registry);
      if (files.length === 0) {
        const { policiesDir } = loadConfig();
        const book = PolicyBook.load(policiesDir, catalog);
        return console.log(`ok: ${book.names().length} policies in ${policiesDir} (${book.names().join(', ')})`);
      }
      const problems = files.flatMap((file) => {
        try {
          const compiled = compilePolicy(basename(file), parsePolicy(file, readFileSync(file, 'utf8')), catalog);
          console.log(`ok: ${file} (${compiled.checks.length} checks, ${compiled.ruleCount} rules, revision ${compiled.revision})`);
          return [];
        } catch (error) {
          if (error instanceof PolicyError) return error.problems;
          throw new CliError(`${file}: ${(error as Error).message}`, EXIT.usage);
        }
      });
      if (problems.length > 0) throw new PolicyError(problems);
    });

  policy
    .command('test')
    .description('run the tests written in policies (default: every file in policies/); exit 4 when one fails')
    .argument('[files...]', 'policy files to test')
    .action(async (files: string[]) => {
      const catalog = new FactCatalog(registry);
      const policies =
        files.length === 0
          ? (() => {
              const book = PolicyBook.load(loadConfig().policiesDir, catalog);
              return book.names().map((name) => book.byName(name) as CompiledPolicy);
            })()
          : files.map((file) => compilePolicy(basename(file), parsePolicy(file, readFileSync(file, 'utf8')), catalog));
      let failed = 0;
      let total = 0;
      for (const compiled of policies) {
        for (const result of await runPolicyTests(compiled)) {
          total += 1;
          console.log(`${result.passed ? 'PASS' : 'FAIL'}  ${compiled.name}: ${result.test.name}`);
          for (const failure of result.failures) console.log(`      ${failure}`);
          if (!result.passed) failed += 1;
        }
      }
      console.log(`${total - failed} passed, ${failed} failed`);
      if (failed > 0) throw new CliError(`${failed} policy test(s) failed`, EXIT.testsFailed);
    });

  return program;
}

function projectJson(p: Project) {
  return {
    id: p.id,
    name: p.name,
    sandbox: p.sandbox,
    policy: p.policy,
    policy_from_file: p.policySource !== null,
    created_at: new Date(p.createdAt).toISOString(),
  };
}

export async function main(argv: string[]): Promise<number> {
  try {
    await buildProgram().parseAsync(argv, { from: 'user' });
    return EXIT.ok;
  } catch (error) {
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
    if (error instanceof CliError) {
      console.error(`error: ${error.message}`);
      return error.exitCode;
    }
    console.error(`error: ${(error as Error).message ?? String(error)}`);
    return EXIT.failed;
  }
}

// `email-trust project create|list|update`: projects, each decided by one policy (a name from policies/ or
// a YAML file whose content is stored with the project).
import { existsSync, readFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { type Command, InvalidArgumentError } from 'commander';
import { registry } from '../../../plugins/index.js';
import { loadConfig } from '../../config.js';
import { FactCatalog } from '../../engine/catalog.js';
import { PolicyBook } from '../../policy/book.js';
import { compilePolicy } from '../../policy/compile.js';
import { parsePolicy } from '../../policy/load.js';
import { type Project, ProjectNameTakenError } from '../../store/projects.js';
import { UsageError } from '../errors.js';
import { createProjectWithKeys, findProject, printCreated, projectSummary } from '../projects.js';
import { withStore } from '../with-store.js';

export function addProjectCommands(program: Command): void {
  const project = program.command('project').description('manage projects');
  project
    .command('create')
    .description('create a project and print its three new keys (shown once)')
    .requiredOption('--name <name>', 'project name (unique)', projectName)
    .option('--sandbox', 'a sandbox project: its calls do not count toward quota and it may send custom_policy', false)
    .option('--policy <name-or-file>', 'a policy in policies/ by name, or a YAML file (its content is stored with the project)', 'default')
    .option('--json', 'print one JSON object on stdout', false)
    .action(createProject);
  project.command('list').description('list projects').option('--json', 'print a JSON array on stdout', false).action(listProjects);
  project
    .command('update')
    .description("change a project's policy (running services apply it within 5 seconds)")
    .argument('<name-or-id>', 'the project')
    .requiredOption('--policy <name-or-file>', 'a policy in policies/ by name, or a YAML file (its content is stored with the project)')
    .option('--json', 'print one JSON object on stdout', false)
    .action(updateProject);
}

function projectName(value: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/.test(value)) {
    throw new InvalidArgumentError('a project name is 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit');
  }
  return value;
}

/** A policy name from policies/, or a file (compiled here, so an invalid one exits 3) whose content is stored with the project. */
function resolvePolicy(nameOrFile: string): { policy: string; policySource: string | null } {
  const catalog = new FactCatalog(registry);
  const { policiesDir } = loadConfig();
  const book = PolicyBook.load(policiesDir, catalog);
  if (book.byName(nameOrFile)) return { policy: nameOrFile, policySource: null };
  const file = resolve(nameOrFile);
  if (!existsSync(file)) {
    throw new UsageError(`--policy: "${nameOrFile}" is neither a policy in ${policiesDir} (${book.names().join(', ')}) nor a file`);
  }
  const text = readFileSync(file, 'utf8');
  compilePolicy(basename(file), parsePolicy(file, text), catalog);
  return { policy: basename(file).replace(/\.ya?ml$/, ''), policySource: text };
}

async function createProject(opts: { name: string; sandbox: boolean; policy: string; json: boolean }): Promise<void> {
  const policy = resolvePolicy(opts.policy);
  const created = await withStore((store) =>
    createProjectWithKeys(store, { name: opts.name, sandbox: opts.sandbox, ...policy }).catch((error: unknown) => {
      if (error instanceof ProjectNameTakenError) throw new UsageError(`--name: a project named "${opts.name}" already exists`);
      throw error;
    }),
  );
  if (opts.json) console.log(JSON.stringify(created));
  else printCreated(created);
}

async function listProjects(opts: { json: boolean }): Promise<void> {
  const projects = await withStore((store) => store.projects.list());
  if (opts.json) console.log(JSON.stringify(projects.map(projectJson)));
  else if (projects.length === 0) console.log('no projects yet: create one with `email-trust project create --name NAME`');
  else for (const p of projects) console.log(`${p.id}  ${p.name}${p.sandbox ? '  (sandbox)' : ''}  policy=${p.policy}${p.policySource ? ' (from file)' : ''}`);
}

async function updateProject(nameOrId: string, opts: { policy: string; json: boolean }): Promise<void> {
  const policy = resolvePolicy(opts.policy);
  const updated = await withStore(async (store) => store.projects.update((await findProject(store, nameOrId)).id, policy));
  if (!updated) throw new UsageError(`no project named or with id "${nameOrId}"; see \`email-trust project list\``);
  if (opts.json) {
    console.log(JSON.stringify({ project: projectSummary(updated) }));
    return;
  }
  const source = updated.policySource === null ? '' : ' (from file)';
  console.log(`Updated project "${updated.name}" (${updated.id}): policy ${updated.policy}${source}; running services apply it within 5 seconds.`);
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

// `email-trust project create|list|show|update|set-origins|set-quota|set-reputation-sharing|lists`: projects, each decided by one policy (a name
// from policies/ or a YAML file whose content is stored with the project), the browser origins whose
// pages may call POST /v1/fingerprint with its public key, and its own domain lists (project-lists.ts).
import { existsSync, readFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { type Command, InvalidArgumentError } from 'commander';
import { registry } from '../../../plugins/index.js';
import { loadConfig } from '../../config.js';
import { FactCatalog } from '../../engine/catalog.js';
import { PolicyBook } from '../../policy/book.js';
import { loadPolicy } from '../../policy/load.js';
import { policyFolders } from '../../policy/named-policies.js';
import { MAX_ORIGINS_PER_PROJECT, OriginError, parseOrigin } from '../../service/browser-origins.js';
import { type Project, ProjectNameTakenError } from '../../store/projects.js';
import { UsageError } from '../errors.js';
import { createProjectWithKeys, findProject, printCreated, projectSummary } from '../projects.js';
import { withStore } from '../with-store.js';
import { addProjectListCommands } from './project-lists.js';
import { addProjectQuotaCommands } from './project-quota.js';
import { addProjectReputationCommands } from './project-reputation.js';
import { addProjectShowCommand } from './project-show.js';

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
  addProjectShowCommand(project);
  project
    .command('update')
    .description("change a project's policy (running services apply it within 5 seconds)")
    .argument('<name-or-id>', 'the project')
    .requiredOption('--policy <name-or-file>', 'a policy in policies/ by name, or a YAML file (its content is stored with the project)')
    .option('--json', 'print one JSON object on stdout', false)
    .action(updateProject);
  project
    .command('set-origins')
    .description(
      'set the browser origins whose pages may call POST /v1/fingerprint with the public key, replacing the list (running services apply it within 5 seconds)',
    )
    .argument('<name-or-id>', 'the project')
    .argument('[origins...]', `up to ${MAX_ORIGINS_PER_PROJECT} origins, e.g. https://shop.example http://localhost:3000; none clears the list`)
    .option('--none', 'clear the list: no browser page may call /v1/fingerprint with the public key', false)
    .option('--json', 'print one JSON object on stdout', false)
    .action(setOrigins);
  addProjectQuotaCommands(project);
  addProjectReputationCommands(project);
  addProjectListCommands(project);
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
    throw new UsageError(
      `--policy: "${nameOrFile}" is neither a policy in ${policyFolders(policiesDir)} (${book.names().join(', ')}) nor a file: add ${nameOrFile}.yaml to POLICIES_DIR (set it to your policies folder), or give the path of a policy file`,
    );
  }
  const text = readFileSync(file, 'utf8');
  loadPolicy({ name: basename(file), file, text }, catalog);
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
  else for (const p of projects) console.log(projectLine(p));
}

function projectLine(p: Project): string {
  const origins = p.allowedOrigins.length > 0 ? `  origins=${p.allowedOrigins.join(',')}` : '';
  const quota = p.monthlyQuota === null ? '' : `  quota=${p.monthlyQuota}/month`;
  return `${p.id}  ${p.name}${p.sandbox ? '  (sandbox)' : ''}  policy=${p.policy}${p.policySource ? ' (from file)' : ''}${origins}${quota}`;
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

async function setOrigins(nameOrId: string, given: string[], opts: { none: boolean; json: boolean }): Promise<void> {
  if (opts.none && given.length > 0) throw new UsageError('--none clears the list: give either --none or origins, not both');
  const origins = [...new Set(given.map(originArgument))];
  if (origins.length > MAX_ORIGINS_PER_PROJECT) throw new UsageError(`a project allows at most ${MAX_ORIGINS_PER_PROJECT} origins, not ${origins.length}`);
  const updated = await withStore(async (store) => store.projects.update((await findProject(store, nameOrId)).id, { allowedOrigins: origins }));
  if (!updated) throw new UsageError(`no project named or with id "${nameOrId}"; see \`email-trust project list\``);
  if (opts.json) {
    console.log(JSON.stringify({ project: projectSummary(updated), allowed_origins: updated.allowedOrigins }));
    return;
  }
  const allowed = updated.allowedOrigins.length > 0 ? `browser pages on ${updated.allowedOrigins.join(', ')} may` : 'no browser page may';
  console.log(`Project "${updated.name}" (${updated.id}): ${allowed} call POST /v1/fingerprint; running services apply it within 5 seconds.`);
}

function originArgument(text: string): string {
  try {
    return parseOrigin(text);
  } catch (error) {
    if (error instanceof OriginError) throw new UsageError(`origin ${error.message}`);
    throw error;
  }
}

function projectJson(p: Project) {
  return {
    id: p.id,
    name: p.name,
    sandbox: p.sandbox,
    policy: p.policy,
    policy_from_file: p.policySource !== null,
    allowed_origins: p.allowedOrigins,
    monthly_quota: p.monthlyQuota,
    created_at: new Date(p.createdAt).toISOString(),
  };
}

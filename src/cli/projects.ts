// Projects as the command line shows them: finding one by name or id, creating one with its three
// keys, and the demo project a fresh install starts with.
import type { Store } from '../store/database.js';
import { createKeys, KEY_KINDS, type KeyKind } from '../store/keys.js';
import { createProjects, type NewProject, type Project, ProjectNameTakenError } from '../store/projects.js';
import { UsageError } from './errors.js';

export const DEMO_PROJECT = 'demo';

export interface ProjectSummary {
  id: string;
  name: string;
  sandbox: boolean;
  policy: string;
}

export interface CreatedProject {
  project: ProjectSummary;
  /** The plain keys, shown once. */
  keys: Record<KeyKind, string>;
}

export function projectSummary(project: Project): ProjectSummary {
  return { id: project.id, name: project.name, sandbox: project.sandbox, policy: project.policy };
}

export async function findProject(store: Store, nameOrId: string): Promise<Project> {
  const project = (await store.projects.getByName(nameOrId)) ?? (await store.projects.get(nameOrId));
  if (!project) throw new UsageError(`no project named or with id "${nameOrId}"; see \`email-trust project list\``);
  return project;
}

/** One transaction: a project is never left behind without its keys. */
export async function createProjectWithKeys(store: Store, spec: NewProject): Promise<CreatedProject> {
  return store.knex.transaction(async (trx) => {
    const project = await createProjects(trx).create(spec);
    const keyStore = createKeys(trx);
    const keys = {} as Record<KeyKind, string>;
    for (const kind of KEY_KINDS) keys[kind] = (await keyStore.create(project.id, kind)).token;
    return { project: projectSummary(project), keys };
  });
}

/** On an empty database, creates the sandbox project `demo` with the default policy; null otherwise. */
export async function ensureDemoProject(store: Store): Promise<CreatedProject | null> {
  if ((await store.projects.list()).length > 0) return null;
  try {
    return await createProjectWithKeys(store, { name: DEMO_PROJECT, sandbox: true, policy: 'default' });
  } catch (error) {
    if (error instanceof ProjectNameTakenError) return null; // another instance made it first
    throw error;
  }
}

export function printCreated(created: CreatedProject, baseUrl?: string): void {
  const { project, keys } = created;
  const lines = [
    `Created ${project.sandbox ? 'sandbox ' : ''}project "${project.name}" (${project.id}, policy: ${project.policy}).`,
    'Its keys are shown this once; keep them somewhere safe:',
    `  access_token  ${keys.access_token}   (Authorization: Bearer …, server side only, for POST /v1/public/verify)`,
    `  private_key   ${keys.private_key}   (x-api-key, server side only, for POST /v1/intelligence)`,
    `  public_key    ${keys.public_key}   (x-api-key, safe in browsers, for POST /v1/fingerprint)`,
  ];
  if (baseUrl) {
    const body = JSON.stringify({ email_address: 'jane.doe+test@gmail.com', ipv4_address: '203.0.113.7', show_results: true, show_steps: true });
    lines.push(
      'Try it:',
      `  curl -s -X POST ${baseUrl}/v1/public/verify -H 'Authorization: Bearer ${keys.access_token}' -H 'Content-Type: application/json' -d '${body}'`,
      `API documentation: ${baseUrl}/docs`,
    );
  }
  console.log(lines.join('\n'));
}

// `email-trust key create|list|revoke`: a project's API keys, shown once and stored only as hashes.
import { type Command, Option } from 'commander';
import { KEY_KINDS, type KeyKind } from '../../store/keys.js';
import { UsageError } from '../errors.js';
import { findProject } from '../projects.js';
import { withStore } from '../with-store.js';

export function addKeyCommands(program: Command): void {
  const key = program.command('key').description('manage API keys (stored only as SHA-256 hashes)');
  key
    .command('create')
    .description('create a key for a project and print it (shown once)')
    .requiredOption('--project <name-or-id>', 'the project')
    .addOption(new Option('--kind <kind>', 'kind of key').choices(KEY_KINDS).makeOptionMandatory())
    .option('--json', 'print one JSON object on stdout', false)
    .action(createKey);
  key
    .command('list')
    .description("list a project's keys (hints only; tokens are never stored)")
    .requiredOption('--project <name-or-id>', 'the project')
    .option('--json', 'print a JSON array on stdout', false)
    .action(listKeys);
  key
    .command('revoke')
    .description('revoke a key by id (takes effect within 5 seconds on running services)')
    .argument('<key-id>', 'the key id, from `email-trust key list`')
    .action(revokeKey);
}

async function createKey(opts: { project: string; kind: KeyKind; json: boolean }): Promise<void> {
  const created = await withStore(async (store) => store.keys.create((await findProject(store, opts.project)).id, opts.kind));
  if (opts.json) {
    console.log(JSON.stringify({ id: created.key.id, kind: created.key.kind, project_id: created.key.projectId, token: created.token }));
    return;
  }
  console.log(`created ${created.key.kind} ${created.key.id} (shown once, keep it):\n  ${created.token}`);
}

async function listKeys(opts: { project: string; json: boolean }): Promise<void> {
  const keys = await withStore(async (store) => store.keys.list((await findProject(store, opts.project)).id));
  if (opts.json) {
    console.log(JSON.stringify(keys));
    return;
  }
  for (const k of keys) {
    const revoked = k.revokedAt ? `  REVOKED ${new Date(k.revokedAt).toISOString()}` : '';
    console.log(`${k.id}  ${k.kind.padEnd(12)}  ${k.hint}…  created ${new Date(k.createdAt).toISOString()}${revoked}`);
  }
}

async function revokeKey(id: string): Promise<void> {
  const revoked = await withStore((store) => store.keys.revoke(id));
  if (!revoked) throw new UsageError(`no live key with id "${id}"; see \`email-trust key list --project NAME\``);
  console.log(`revoked ${id}`);
}

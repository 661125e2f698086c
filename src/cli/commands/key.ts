// `email-trust key create|rotate|list|revoke`: a project's API keys, shown once and stored only as hashes.
import { type Command, InvalidArgumentError, Option } from 'commander';
import { type ApiKey, KEY_KINDS, type KeyKind } from '../../store/keys.js';
import { UsageError } from '../errors.js';
import { findProject } from '../projects.js';
import { withStore } from '../with-store.js';

/** The longest grace a rotation gives the old key: past a quarter it is a forgotten key, not a grace. */
export const MAX_GRACE_DAYS = 90;
const MAX_LABEL_LENGTH = 64;
const DAY_MS = 86_400_000;
const UNIT_MS: Readonly<Record<string, number>> = { s: 1_000, m: 60_000, h: 3_600_000, d: DAY_MS };

export function addKeyCommands(program: Command): void {
  const key = program.command('key').description('manage API keys (stored only as SHA-256 hashes)');
  key
    .command('create')
    .description('create a key for a project and print it (shown once)')
    .requiredOption('--project <name-or-id>', 'the project')
    .addOption(new Option('--kind <kind>', 'kind of key').choices(KEY_KINDS).makeOptionMandatory())
    .option('--label <text>', `what or who uses the key, shown by \`key list\` (at most ${MAX_LABEL_LENGTH} characters)`, labelArgument)
    .option('--json', 'print one JSON object on stdout', false)
    .action(createKey);
  key
    .command('rotate')
    .description(
      "create a new key of a kind and print it (shown once); the project's other keys of that kind keep working for the grace period, then are refused (401)",
    )
    .requiredOption('--project <name-or-id>', 'the project')
    .addOption(new Option('--kind <kind>', 'kind of key').choices(KEY_KINDS).makeOptionMandatory())
    .option(
      '--grace <duration>',
      `how long the old keys keep working: a number and s, m, h or d (0: refused at once; at most ${MAX_GRACE_DAYS}d)`,
      graceArgument,
      7 * DAY_MS,
    )
    .option('--label <text>', 'label of the new key (default: the label of the newest key it replaces)', labelArgument)
    .option('--json', 'print one JSON object on stdout', false)
    .action(rotateKey);
  key
    .command('list')
    .description("list a project's keys: hint, label, when created, last used (recorded at most once a minute) and revoked (tokens are never stored)")
    .requiredOption('--project <name-or-id>', 'the project')
    .option('--json', 'print a JSON array on stdout', false)
    .action(listKeys);
  key
    .command('revoke')
    .description('revoke a key by id now, a scheduled revocation too (takes effect within 5 seconds on running services)')
    .argument('<key-id>', 'the key id, from `email-trust key list`')
    .action(revokeKey);
}

/** `7d`, `12h`, `30m`, `45s` or `0`, up to MAX_GRACE_DAYS, in milliseconds. */
export function graceArgument(text: string): number {
  const match = /^(\d{1,9})([smhd])?$/.exec(text.trim());
  const unit = match?.[2];
  if (!match || (unit === undefined && match[1] !== '0'))
    throw new InvalidArgumentError(`"${text}" is not a duration: give a number and a unit, s, m, h or d (e.g. 7d, 12h), or 0`);
  const ms = Number(match[1]) * (unit === undefined ? 0 : (UNIT_MS[unit] as number));
  if (ms > MAX_GRACE_DAYS * DAY_MS) throw new InvalidArgumentError(`"${text}" is longer than the longest grace, ${MAX_GRACE_DAYS}d`);
  return ms;
}

function labelArgument(text: string): string {
  const label = text.trim();
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (label.length === 0 || label.length > MAX_LABEL_LENGTH || /[\u0000-\u001f\u007f]/.test(label))
    throw new InvalidArgumentError(`a label is 1 to ${MAX_LABEL_LENGTH} characters without control characters`);
  return label;
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/** A key as every --json output shows it: the API's snake_case, times in ISO 8601. */
export function keyJson(k: ApiKey, now: number) {
  return {
    id: k.id,
    project_id: k.projectId,
    kind: k.kind,
    hint: k.hint,
    label: k.label,
    status: k.revokedAt === null ? 'live' : k.revokedAt > now ? 'revoking' : 'revoked',
    created_at: iso(k.createdAt),
    last_used_at: iso(k.lastUsedAt),
    revoked_at: iso(k.revokedAt),
  };
}

async function createKey(opts: { project: string; kind: KeyKind; label?: string; json: boolean }): Promise<void> {
  const created = await withStore(async (store) => store.keys.create((await findProject(store, opts.project)).id, opts.kind, { label: opts.label ?? null }));
  if (opts.json) {
    console.log(JSON.stringify({ ...keyJson(created.key, Date.now()), token: created.token }));
    return;
  }
  console.log(`created ${created.key.kind} ${created.key.id}${labelText(created.key)} (shown once, keep it):\n  ${created.token}`);
}

async function rotateKey(opts: { project: string; kind: KeyKind; grace: number; label?: string; json: boolean }): Promise<void> {
  const now = Date.now();
  const { created, retiring } = await withStore(async (store) =>
    store.keys.rotate((await findProject(store, opts.project)).id, opts.kind, { graceMs: opts.grace, now, label: opts.label ?? null }),
  );
  if (opts.json) {
    console.log(JSON.stringify({ ...keyJson(created.key, now), token: created.token, retiring: retiring.map((k) => keyJson(k, now)) }));
    return;
  }
  const lines = [`created ${created.key.kind} ${created.key.id}${labelText(created.key)} (shown once, keep it):`, `  ${created.token}`];
  if (retiring.length === 0) lines.push(`no other live ${opts.kind} to retire: the new key is the project's only one`);
  for (const k of retiring) {
    const when = (k.revokedAt as number) <= now ? 'is refused from now on' : `keeps working until ${iso(k.revokedAt)}, then is refused`;
    lines.push(`${k.id} (${k.hint}…${labelText(k)}) ${when}; \`email-trust key revoke ${k.id}\` ends it sooner`);
  }
  console.log(lines.join('\n'));
}

async function listKeys(opts: { project: string; json: boolean }): Promise<void> {
  const keys = await withStore(async (store) => store.keys.list((await findProject(store, opts.project)).id));
  const now = Date.now();
  if (opts.json) {
    console.log(JSON.stringify(keys.map((k) => keyJson(k, now))));
    return;
  }
  if (keys.length === 0) console.log('no keys: create one with `email-trust key create --project NAME --kind KIND`');
  for (const k of keys) console.log(keyLine(k, now));
}

/** A key as `key list` prints it: id, kind, hint, label, created, last used, revocation. */
export function keyLine(k: ApiKey, now: number): string {
  const used = k.lastUsedAt === null ? 'never used' : `last used ${iso(k.lastUsedAt)}`;
  const revoked = k.revokedAt === null ? '' : k.revokedAt > now ? `  REVOKES ${iso(k.revokedAt)}` : `  REVOKED ${iso(k.revokedAt)}`;
  return `${k.id}  ${k.kind.padEnd(12)}  ${k.hint}…${k.label === null ? '' : ` ${labelText(k)}`}  created ${iso(k.createdAt)}  ${used}${revoked}`;
}

/** ` "label"` after a key's id or hint, nothing for a key without one. */
function labelText(k: ApiKey): string {
  return k.label === null ? '' : ` "${k.label}"`;
}

async function revokeKey(id: string): Promise<void> {
  const revoked = await withStore((store) => store.keys.revoke(id));
  if (!revoked) throw new UsageError(`no live key with id "${id}"; see \`email-trust key list --project NAME\``);
  console.log(`revoked ${id}`);
}

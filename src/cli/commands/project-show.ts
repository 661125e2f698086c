// `email-trust project show`: one project as the service sees it: its policy (a name, or a file stored with
// the project), the revision a service compiles from it now and its text, its own domain lists (counts, and
// the first entries of each), its monthly quota and this month's count, its browser origins, and its keys
// (hints only: a key's token is never stored).
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { registry } from '../../../plugins/index.js';
import { loadConfig } from '../../config.js';
import { FactCatalog } from '../../engine/catalog.js';
import { PolicyBook, PolicyNotFoundError } from '../../policy/book.js';
import { formatProblem, PolicyError } from '../../policy/errors.js';
import type { Store } from '../../store/database.js';
import type { ApiKey } from '../../store/keys.js';
import type { Project } from '../../store/projects.js';
import { monthOf } from '../../store/usage.js';
import { findProject } from '../projects.js';
import { withStore } from '../with-store.js';
import { keyJson, keyLine } from './key.js';

/** Entries shown per list; `project lists show` prints them all. */
const SHOWN_ENTRIES = 20;

interface PolicyInUse {
  name: string;
  fromFile: boolean;
  /** The named policy's file; null for a stored one. */
  file: string | null;
  /** The revision a service compiles now; null when it cannot (problem says why). */
  revision: string | null;
  problem: string | null;
  text: string | null;
}

interface Shown {
  project: Project;
  policy: PolicyInUse;
  lists: Array<{ list: string; count: number; entries: string[] }>;
  month: { month: string; calls: number };
  keys: ApiKey[];
}

export function addProjectShowCommand(project: Command): void {
  project
    .command('show')
    .description(
      "show a project: its policy (name or file, the revision in use, its text), its own lists, quota and this month's calls, origins and keys (hints only)",
    )
    .argument('<name-or-id>', 'the project')
    .option('--json', 'print one JSON object on stdout', false)
    .action(showProject);
}

/** The project's policy compiled as a service would compile it (PolicyBook.forProject), and its text. */
function policyInUse(project: Project): PolicyInUse {
  const fromFile = project.policySource !== null;
  const shown: PolicyInUse = { name: project.policy, fromFile, file: null, revision: null, problem: null, text: project.policySource };
  try {
    const compiled = PolicyBook.load(loadConfig().policiesDir, new FactCatalog(registry)).forProject(project);
    shown.revision = compiled.revision;
    if (!fromFile) {
      shown.file = compiled.file;
      shown.text = readFileSync(compiled.file, 'utf8');
    }
  } catch (error) {
    if (error instanceof PolicyError) shown.problem = error.problems.map(formatProblem).join('; ');
    else if (error instanceof PolicyNotFoundError) shown.problem = error.message;
    else throw error;
  }
  return shown;
}

async function gather(store: Store, nameOrId: string, now: number): Promise<Shown> {
  const project = await findProject(store, nameOrId);
  const counts = await store.projectLists.counts(project.id);
  const lists = [];
  for (const [list, count] of Object.entries(counts).sort(([a], [b]) => a.localeCompare(b))) {
    lists.push({ list, count, entries: await store.projectLists.entries(project.id, list, SHOWN_ENTRIES) });
  }
  const month = monthOf(now);
  return {
    project,
    policy: policyInUse(project),
    lists,
    month: { month, calls: await store.usage.get(project.id, month) },
    keys: await store.keys.list(project.id),
  };
}

async function showProject(nameOrId: string, opts: { json: boolean }): Promise<void> {
  const now = Date.now();
  const shown = await withStore((store) => gather(store, nameOrId, now));
  console.log(opts.json ? JSON.stringify(showJson(shown, now)) : showText(shown, now).join('\n'));
}

function showJson({ project: p, policy, lists, month, keys }: Shown, now: number) {
  return {
    id: p.id,
    name: p.name,
    sandbox: p.sandbox,
    created_at: new Date(p.createdAt).toISOString(),
    policy: {
      name: policy.name,
      from_file: policy.fromFile,
      file: policy.file,
      revision: policy.revision,
      problem: policy.problem,
      text: policy.text,
    },
    lists: Object.fromEntries(lists.map((l) => [l.list, { count: l.count, entries: l.entries }])),
    monthly_quota: p.monthlyQuota,
    usage: month,
    allowed_origins: p.allowedOrigins,
    shares_reputation: p.sharesReputation,
    keys: keys.map((k) => keyJson(k, now)),
  };
}

function showText({ project: p, policy, lists, month, keys }: Shown, now: number): string[] {
  const source = policy.fromFile ? `${policy.name} (from file)` : `${policy.name} (${policy.file ?? 'not found'})`;
  const revision = policy.revision === null ? `cannot be compiled: ${policy.problem}` : `revision ${policy.revision}`;
  const quota = p.monthlyQuota === null ? 'none' : `${p.monthlyQuota} calls a month`;
  const lines = [
    `project ${p.name} (${p.id})${p.sandbox ? ', sandbox (calls never count toward a quota)' : ''}, created ${new Date(p.createdAt).toISOString()}`,
    `policy    ${source}, ${revision}`,
    `quota     ${quota}; ${month.month}: ${month.calls} calls counted`,
    `origins   ${p.allowedOrigins.length > 0 ? p.allowedOrigins.join(', ') : 'none'}`,
    `sharing   ${p.sharesReputation ? 'shares its reputation (with SHARED_REPUTATION=on)' : 'does not share its reputation'}`,
    keys.length > 0 ? 'keys' : 'keys      none',
    ...keys.map((k) => `  ${keyLine(k, now)}`),
    lists.length > 0 ? 'lists' : 'lists     none of its own',
  ];
  for (const l of lists) {
    lines.push(`  ${l.list}  ${l.count} ${l.count === 1 ? 'entry' : 'entries'}`, ...l.entries.map((entry) => `    ${entry}`));
    if (l.count > l.entries.length) lines.push(`    … ${l.count - l.entries.length} more: email-trust project lists show ${p.name} ${l.list}`);
  }
  lines.push(
    'policy text:',
    ...(policy.text === null
      ? ['  (not found)']
      : policy.text
          .trimEnd()
          .split('\n')
          .map((line) => (line === '' ? '' : `  ${line}`))),
  );
  return lines;
}

// `email-trust project lists add|remove|show|clear`: a project's own domain lists, held in the database
// and read by the domain-list checks (known-abuse, spam-trap, disposable, and the `not-…` lists of domains
// they never flag). Input is all or nothing: a bad line refuses the whole change unless --skip-invalid.
import { existsSync, readFileSync, statSync } from 'node:fs';
import type { Command } from 'commander';
import { registry } from '../../../plugins/index.js';
import { loadConfig } from '../../config.js';
import { FactCatalog } from '../../engine/catalog.js';
import { PolicyBook } from '../../policy/book.js';
import type { Store } from '../../store/database.js';
import { ListFullError, MAX_LIST_ENTRIES } from '../../store/project-lists.js';
import type { Project } from '../../store/projects.js';
import { fmt } from '../bulk/progress.js';
import { type DomainLines, listDomain, parseDomainLines, type RefusedLine } from '../domain-lines.js';
import { UsageError } from '../errors.js';
import { findProject, projectSummary } from '../projects.js';
import { withStore } from '../with-store.js';

/** A list file larger than this is refused unread (100,000 domains of 253 characters fit in 25 MB). */
const MAX_FILE_BYTES = 32 * 1024 * 1024;
/** Refused lines printed; the rest are counted. */
const MAX_REFUSED_SHOWN = 20;

const catalog = new FactCatalog(registry);
const LIST_NAMES = [...catalog.listOwner.keys()];

interface ChangeOptions {
  json: boolean;
  skipInvalid: boolean;
}

export function addProjectListCommands(project: Command): void {
  const lists = project
    .command('lists')
    .description(`a project's own domain lists (${LIST_NAMES.join(', ')}); running services apply changes within 5 seconds`);
  const sources = `FILEs (one domain per line, # comments; - reads stdin) or domains; at most ${fmt(MAX_LIST_ENTRIES)} entries per list`;
  lists
    .command('add')
    .description("add domains to one of the project's lists (each also covers its subdomains)")
    .argument('<project>', 'the project, by name or id')
    .argument('<list>', LIST_NAMES.join(' | '))
    .argument('<sources...>', sources)
    .option('--skip-invalid', 'add the valid domains and report the refused lines, rather than refusing the whole change', false)
    .option('--json', 'print one JSON object on stdout', false)
    .action((nameOrId: string, list: string, given: string[], opts: ChangeOptions) => changeList('add', nameOrId, list, given, opts));
  lists
    .command('remove')
    .description("remove domains from one of the project's lists")
    .argument('<project>', 'the project, by name or id')
    .argument('<list>', LIST_NAMES.join(' | '))
    .argument('<sources...>', sources)
    .option('--skip-invalid', 'remove the valid domains and report the refused lines, rather than refusing the whole change', false)
    .option('--json', 'print one JSON object on stdout', false)
    .action((nameOrId: string, list: string, given: string[], opts: ChangeOptions) => changeList('remove', nameOrId, list, given, opts));
  lists
    .command('show')
    .description("show the project's lists: how many entries each holds, and the entries")
    .argument('<project>', 'the project, by name or id')
    .argument('[list]', `one list (${LIST_NAMES.join(' | ')}); every list when absent`)
    .option('--json', 'print one JSON object on stdout', false)
    .action(showLists);
  lists
    .command('clear')
    .description('remove every entry of one list, or of every list with --all')
    .argument('<project>', 'the project, by name or id')
    .argument('[list]', LIST_NAMES.join(' | '))
    .option('--all', 'clear every list of the project', false)
    .option('--json', 'print one JSON object on stdout', false)
    .action(clearLists);
}

function listName(list: string): string {
  if (!catalog.listOwner.has(list)) throw new UsageError(`unknown list "${list}"; lists: ${LIST_NAMES.join(', ')}`);
  return list;
}

/** The domains of every source: `-` is stdin, an existing file is read, anything else is a domain. */
function readSources(given: readonly string[]): DomainLines {
  const domains: string[] = [];
  const refused: RefusedLine[] = [];
  given.forEach((source, index) => {
    if (source === '-' || existsSync(source)) {
      const parsed = parseDomainLines(readSource(source), source === '-' ? 'stdin' : source);
      domains.push(...parsed.domains);
      refused.push(...parsed.refused);
      return;
    }
    const parsed = listDomain(source);
    if ('domain' in parsed) domains.push(parsed.domain);
    else refused.push({ source: 'argument', line: index + 1, text: source, reason: `neither a file nor a domain: ${parsed.reason}` });
  });
  return { domains: [...new Set(domains)], refused };
}

function readSource(source: string): string {
  if (source !== '-') {
    const stats = statSync(source);
    if (!stats.isFile()) throw new UsageError(`${source} is not a file`);
    if (stats.size > MAX_FILE_BYTES)
      throw new UsageError(`${source} is larger than ${MAX_FILE_BYTES / 1024 / 1024} MB; a list holds at most ${MAX_LIST_ENTRIES} entries`);
  }
  return readFileSync(source === '-' ? 0 : source, 'utf8');
}

function refusedLine(r: RefusedLine): string {
  return `${r.source}:${r.line}: "${r.text.slice(0, 80)}": ${r.reason}`;
}

function printRefused(refused: readonly RefusedLine[]): void {
  for (const r of refused.slice(0, MAX_REFUSED_SHOWN)) console.error(refusedLine(r));
  if (refused.length > MAX_REFUSED_SHOWN) console.error(`… and ${refused.length - MAX_REFUSED_SHOWN} more refused lines`);
}

/** A note when the project's policy does not enable the check that reads `list`: the list then changes nothing. */
function unusedListNote(project: Project, list: string): string | null {
  const owner = catalog.listOwner.get(list);
  let enabled: boolean;
  try {
    enabled = PolicyBook.load(loadConfig().policiesDir, catalog)
      .forProject(project)
      .enabledPlugins.some((p) => p === owner);
  } catch {
    return null; // the policy's own problems are `project update`'s and the service's to report, not this command's
  }
  if (!owner || enabled) return null;
  return `note: policy ${project.policy} does not enable the ${owner.id} check (${Object.keys(owner.checks).join(', ')}): this list has no effect until it does`;
}

async function changeList(verb: 'add' | 'remove', nameOrId: string, list: string, given: string[], opts: ChangeOptions): Promise<void> {
  const name = listName(list);
  const { domains, refused } = readSources(given);
  if (refused.length > 0 && !opts.skipInvalid) {
    printRefused(refused);
    throw new UsageError(`${refused.length} line(s) refused; nothing was changed (fix them, or give --skip-invalid to ${verb} the valid ones)`);
  }
  const { project, change, note } = await withStore(async (store) => {
    const found = await findProject(store, nameOrId);
    const lists = store.projectLists;
    try {
      const done = verb === 'add' ? await lists.add(found.id, name, domains) : await lists.remove(found.id, name, domains);
      return { project: found, change: done, note: verb === 'add' ? unusedListNote(found, name) : null };
    } catch (error) {
      if (error instanceof ListFullError) throw new UsageError(`${error.message}; nothing was changed`);
      throw error;
    }
  });
  if (opts.json) {
    const counts = verb === 'add' ? { added: change.changed, already_listed: change.unchanged } : { removed: change.changed, not_listed: change.unchanged };
    console.log(JSON.stringify({ project: projectSummary(project), list: name, ...counts, total: change.total, refused }));
    return;
  }
  printRefused(refused);
  const what =
    verb === 'add'
      ? `added ${change.changed} domain(s) to the ${name} list (${change.unchanged} already on it)`
      : `removed ${change.changed} domain(s) from the ${name} list (${change.unchanged} not on it)`;
  const skipped = refused.length > 0 ? `; ${refused.length} refused line(s) skipped` : '';
  console.log(
    `Project "${project.name}" (${project.id}): ${what}${skipped}; it holds ${change.total} of at most ${MAX_LIST_ENTRIES}. Running services apply it within 5 seconds.`,
  );
  if (note) console.error(note);
}

async function showLists(nameOrId: string, list: string | undefined, opts: { json: boolean }): Promise<void> {
  const names = list === undefined ? LIST_NAMES : [listName(list)];
  const { project, lists } = await withStore(async (store: Store) => {
    const found = await findProject(store, nameOrId);
    const shown: { list: string; entries: string[] }[] = [];
    for (const name of names) shown.push({ list: name, entries: await store.projectLists.entries(found.id, name) });
    return { project: found, lists: shown };
  });
  if (opts.json) {
    const byName = Object.fromEntries(lists.map((l) => [l.list, { count: l.entries.length, entries: l.entries }]));
    console.log(JSON.stringify({ project: projectSummary(project), max_entries: MAX_LIST_ENTRIES, lists: byName }));
    return;
  }
  const lines = [`Project "${project.name}" (${project.id}): lists of at most ${MAX_LIST_ENTRIES} entries each`];
  const width = Math.max(...lists.map((l) => l.list.length));
  for (const l of lists) {
    lines.push(`${l.list.padEnd(width)}  ${l.entries.length} ${l.entries.length === 1 ? 'entry' : 'entries'}`);
    for (const entry of l.entries) lines.push(`  ${entry}`);
  }
  console.log(lines.join('\n'));
}

async function clearLists(nameOrId: string, list: string | undefined, opts: { all: boolean; json: boolean }): Promise<void> {
  if (opts.all === (list !== undefined)) throw new UsageError('give one list to clear, or --all to clear every list of the project');
  const name = list === undefined ? null : listName(list);
  const { project, removed } = await withStore(async (store) => {
    const found = await findProject(store, nameOrId);
    return { project: found, removed: await store.projectLists.clear(found.id, name) };
  });
  if (opts.json) {
    console.log(JSON.stringify({ project: projectSummary(project), list: name, removed }));
    return;
  }
  const which = name === null ? 'every list' : `the ${name} list`;
  console.log(`Project "${project.name}" (${project.id}): cleared ${which} (${removed} entries removed). Running services apply it within 5 seconds.`);
}

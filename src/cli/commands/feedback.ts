// `email-trust feedback import FILE`: historic outcomes from a CSV file (service/feedback-import.ts), with
// progress on stderr and a summary of the lines it could not read; `feedback list`: a project's labels,
// newest change first, with their history on request. Labels given through POST /v1/feedback and imported
// ones are listed alike.
import { createReadStream } from 'node:fs';
import type { Command } from 'commander';
import { loadConfig } from '../../config.js';
import { storedForms } from '../../service/address-forms.js';
import { IMPORT_COLUMNS, type ImportRecord, type ImportSummary, importFeedback } from '../../service/feedback-import.js';
import type { HistoryEntry, StoredLabel } from '../../store/labels.js';
import { isLabel, LABELS, MAX_LABEL_LIST } from '../../store/labels.js';
import { inputFormatOf, openList } from '../bulk/input.js';
import { fmt, Progress } from '../bulk/progress.js';
import { UsageError } from '../errors.js';
import { DEMO_PROJECT, findProject } from '../projects.js';
import { withStore } from '../with-store.js';
import { policyOf } from './decisions.js';

const DEFAULT_LIMIT = 20;
const MAX_EMAIL_LENGTH = 1_024;

interface ListOptions {
  project: string;
  email?: string;
  label?: string;
  limit: string;
  history: boolean;
  json: boolean;
}

export function addFeedbackCommands(program: Command): void {
  const feedback = program
    .command('feedback')
    .description('outcomes of decisions (fraud, bounced, legitimate …): what the reputation facts count and `policy replay --labels` measures');
  feedback
    .command('import')
    .description(
      `load historic outcomes from a CSV file with the header ${IMPORT_COLUMNS.email},${IMPORT_COLUMNS.label},${IMPORT_COLUMNS.date}[,${IMPORT_COLUMNS.ip}][,${IMPORT_COLUMNS.note}] (labels: ${LABELS.join(', ')}; dates such as 2026-11-30 or 2026-11-30T14:05:00Z); loading a file again changes nothing`,
    )
    .argument('<file>', 'the CSV file')
    .option('--project <name-or-id>', 'the project', DEMO_PROJECT)
    .action(importFile);
  feedback
    .command('list')
    .description("list a project's labels, newest change first")
    .option('--project <name-or-id>', 'the project', DEMO_PROJECT)
    .option('--email <address>', 'the labels of this address and of its variants (plus tags, dots on gmail.com)')
    .option('--label <label>', `only this label: ${LABELS.join(', ')}`)
    .option('--limit <n>', `at most this many labels, 1 to ${MAX_LABEL_LIST}`, String(DEFAULT_LIMIT))
    .option('--history', "each label's earlier labels too", false)
    .option('--json', 'print a JSON array on stdout', false)
    .action(listLabels);
}

async function importFile(file: string, opts: { project: string }): Promise<void> {
  if (inputFormatOf(file) !== 'csv') throw new UsageError(`${file}: feedback is imported from a .csv file with a header line`);
  const started = Date.now();
  const summary = await withStore(async (store) => {
    const project = await findProject(store, opts.project);
    const list = await openList(file, IMPORT_COLUMNS.email);
    for (const column of [IMPORT_COLUMNS.label, IMPORT_COLUMNS.date]) {
      if (!list.header.includes(column))
        throw new UsageError(
          `${file}: no column "${column}" in the header (columns: ${list.header.join(', ')}); the header is ${IMPORT_COLUMNS.email},${IMPORT_COLUMNS.label},${IMPORT_COLUMNS.date}[,${IMPORT_COLUMNS.ip}][,${IMPORT_COLUMNS.note}]`,
        );
    }
    const progress = new Progress({ total: await recordEstimate(file), done: 0 });
    const records = async function* (): AsyncGenerator<ImportRecord> {
      for await (const item of list.records) {
        yield { line: item.record.line, columns: item.record.columns, problem: csvProblem(item.problem) };
      }
    };
    const config = loadConfig();
    try {
      return await importFeedback(records(), {
        store,
        policy: policyOf(project),
        project,
        shared: config.sharedReputation && project.sharesReputation,
        now: Date.now(),
        onRecord: () => progress.tick(),
      });
    } finally {
      progress.end();
    }
  });
  printImportSummary(file, opts.project, summary, (Date.now() - started) / 1000);
}

/**
 * What the CSV reader found wrong with a line, for an import: a line shorter than the header is fine (its
 * trailing `ip` and `note` left out: the label and the date are checked by the import), others are not.
 */
function csvProblem(problem: string | null): string | null {
  if (!problem?.startsWith('malformed CSV line')) return null;
  const width = /^malformed CSV line: (\d+) fields where the header has (\d+)$/.exec(problem);
  return width && Number(width[1]) < Number(width[2]) ? null : problem;
}

function printImportSummary(file: string, project: string, s: ImportSummary, seconds: number): void {
  const bad = s.records - s.created - s.replaced - s.unchanged;
  console.log(
    `${file}: ${fmt(s.records)} records for project ${project} in ${seconds.toFixed(1)} s: ${fmt(s.created)} labels created, ${fmt(s.replaced)} replaced, ${fmt(s.unchanged)} unchanged, ${fmt(bad)} bad lines`,
  );
  if (bad === 0) return;
  const kinds = [...s.badByProblem.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  for (const [kind, count] of kinds) console.log(`  ${fmt(count).padStart(7)}  ${kind}`);
  console.log(`bad lines${bad > s.badLines.length ? ` (the first ${s.badLines.length})` : ''}:`);
  for (const { line, problem } of s.badLines) console.log(`  line ${line}: ${problem}`);
  console.log('fix them and import the file again: the lines already loaded change nothing');
}

/** Records in the file, from its line count less the header (for the progress bar). */
async function recordEstimate(file: string): Promise<number> {
  let lines = 0;
  for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) lines += 1;
  return Math.max(0, lines);
}

export function parseListOptions(opts: ListOptions) {
  const limit = Number(opts.limit);
  if (!/^\d+$/.test(opts.limit.trim()) || limit < 1 || limit > MAX_LABEL_LIST)
    throw new UsageError(`--limit must be a whole number from 1 to ${MAX_LABEL_LIST}, got "${opts.limit}"`);
  if (opts.label !== undefined && !isLabel(opts.label)) throw new UsageError(`--label must be one of ${LABELS.join(', ')}; got "${opts.label}"`);
  const email = opts.email?.trim();
  if (email !== undefined && (email === '' || email.length > MAX_EMAIL_LENGTH))
    throw new UsageError(`--email must be an address of 1 to ${MAX_EMAIL_LENGTH} characters`);
  return { limit, label: opts.label ?? null, email: email ?? null };
}

async function listLabels(opts: ListOptions): Promise<void> {
  const o = parseListOptions(opts);
  const listed = await withStore(async (store) => {
    const project = await findProject(store, opts.project);
    const baseEmail = o.email === null ? null : (await storedForms(policyOf(project), o.email)).base;
    const labels = await store.labels.list({ projectId: project.id, baseEmail, label: o.label as StoredLabel['label'] | null, limit: o.limit });
    const histories = opts.history ? await Promise.all(labels.map((l) => store.labels.history(project.id, l.subject))) : [];
    return labels.map((label, i) => ({ label, history: histories[i] ?? null }));
  });
  if (opts.json) {
    console.log(JSON.stringify(listed.map(({ label, history }) => labelJson(label, history))));
    return;
  }
  if (listed.length === 0) console.log(`no labels of project ${opts.project} match; add some with POST /v1/feedback or \`email-trust feedback import FILE\``);
  for (const { label, history } of listed) {
    console.log(labelLine(label));
    for (const h of history ?? []) console.log(`    r${h.revision}  ${iso(h.recordedAt)}  ${h.label}  ${h.source}${h.note === null ? '' : `  ${h.note}`}`);
  }
}

const iso = (ms: number) => new Date(ms).toISOString();

/** What the label is on: the decision (event id), or the address (with its IP) for an imported one. */
function targetText(l: StoredLabel): string {
  if (l.eventId !== null) return `event ${l.eventId}`;
  const ip = l.ipv4 ?? l.ipv6;
  return ip ? `address, ip ${ip}` : 'address';
}

function labelLine(l: StoredLabel): string {
  const labelled = `labelled ${iso(l.labelledAt).slice(0, 10)}`;
  return [iso(l.updatedAt), l.label, l.email, targetText(l), labelled, `${l.source} r${l.revision}`, ...(l.note === null ? [] : [JSON.stringify(l.note)])].join(
    '  ',
  );
}

function labelJson(l: StoredLabel, history: HistoryEntry[] | null) {
  return {
    label: l.label,
    note: l.note,
    email: l.email,
    base_email: l.baseEmail,
    domain: l.domain,
    event_id: l.eventId,
    decision_id: l.decisionId,
    ipv4: l.ipv4,
    ipv6: l.ipv6,
    source: l.source,
    revision: l.revision,
    labelled_at: iso(l.labelledAt),
    updated_at: iso(l.updatedAt),
    ...(history === null
      ? {}
      : {
          history: history.map((h) => ({
            revision: h.revision,
            label: h.label,
            note: h.note,
            source: h.source,
            labelled_at: iso(h.labelledAt),
            recorded_at: iso(h.recordedAt),
          })),
        }),
  };
}

// `email-trust feedback import`: historic outcomes (a chargeback export, a bounce log) loaded as labels.
// Each record names an address, a label, the date the outcome was observed and, optionally, the IP: it
// becomes the label of that address (from that IP), which the reputation facts count on the record's
// date and `policy replay --labels` finds for the address's events (store/labels.ts forEvents). A record
// that cannot be read is counted with its problem and line, never fatal; the same file loaded again
// changes nothing.
import ipaddr from 'ipaddr.js';
import type { CompiledPolicy } from '../policy/compile.js';
import type { Store } from '../store/database.js';
import { canonicalIp } from '../store/events.js';
import { addressSubject, isLabel, LABELS, type LabelChange, MAX_NOTE_LENGTH, type NewLabel } from '../store/labels.js';
import type { Project } from '../store/projects.js';
import { storedForms } from './address-forms.js';

/** The columns a feedback file's header names (`ip` and `note` may be left out). */
export const IMPORT_COLUMNS = { email: 'email_address', label: 'label', date: 'date', ip: 'ip', note: 'note' } as const;

/** The longest address a record may carry (verify's limit on email_address). */
const MAX_ADDRESS_LENGTH = 1024;
/** A date may be at most this far in the future (clocks and time zones differ by a day at most). */
const FUTURE_SLACK_MS = 86_400_000;

export interface ImportRecord {
  line: number;
  columns: Record<string, string>;
  /** Set when the line could not be read at all (malformed CSV). */
  problem?: string | null;
}

export interface BadLine {
  line: number;
  problem: string;
}

export interface ImportSummary {
  records: number;
  created: number;
  replaced: number;
  unchanged: number;
  /** Records refused, by problem (the problem's kind: `unknown label` …), with how many. */
  badByProblem: Map<string, number>;
  /** The first bad lines, in file order (at most `keepBadLines`). */
  badLines: BadLine[];
}

export interface ImportOptions {
  store: Store;
  policy: CompiledPolicy;
  project: Project;
  /** Whether the project's labels count in the shared reputation (SHARED_REPUTATION and the project's setting). */
  shared: boolean;
  now: number;
  /** Bad lines kept for the report (the rest are counted). */
  keepBadLines?: number;
  onRecord?: () => void;
}

/** One record read into a label, or the reason it cannot be one: `kind` groups the summary, `problem` is the line's. */
type Parsed =
  | { ok: true; email: string; label: (typeof LABELS)[number]; labelledAt: number; ip: string | null; note: string | null }
  | { ok: false; kind: string; problem: string };

const refuse = (kind: string, problem: string = kind): Parsed => ({ ok: false, kind, problem });

export function parseRecord(columns: Record<string, string>, now: number): Parsed {
  const email = (columns[IMPORT_COLUMNS.email] ?? '').trim();
  if (email === '') return refuse('no address');
  if (email.length > MAX_ADDRESS_LENGTH) return refuse(`address longer than ${MAX_ADDRESS_LENGTH} characters`);
  const label = (columns[IMPORT_COLUMNS.label] ?? '').trim().toLowerCase();
  if (!isLabel(label)) return refuse('unknown label', `label "${label.slice(0, 40)}" is not one of ${LABELS.join(', ')}`);
  const dateText = (columns[IMPORT_COLUMNS.date] ?? '').trim();
  const labelledAt = parseDate(dateText);
  if (labelledAt === null) return refuse('bad date', `date "${dateText.slice(0, 40)}" is not a date such as 2026-11-30 or 2026-11-30T14:05:00Z`);
  if (labelledAt > now + FUTURE_SLACK_MS) return refuse('date in the future', `date ${dateText} is in the future`);
  const ipText = (columns[IMPORT_COLUMNS.ip] ?? '').trim();
  if (ipText !== '' && !ipaddr.IPv4.isValidFourPartDecimal(ipText) && !ipaddr.IPv6.isValid(ipText))
    return refuse('bad ip', `ip "${ipText.slice(0, 60)}" is not an IPv4 or IPv6 address`);
  const note = (columns[IMPORT_COLUMNS.note] ?? '').trim();
  if (note.length > MAX_NOTE_LENGTH) return refuse('note too long', `note longer than ${MAX_NOTE_LENGTH} characters`);
  return { ok: true, email, label, labelledAt, ip: ipText === '' ? null : canonicalIp(ipText), note: note === '' ? null : note };
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?$/i;

/** A calendar date (midnight UTC) or an ISO 8601 date and time (UTC when it has no offset); null otherwise. */
export function parseDate(text: string): number | null {
  if (DATE_ONLY.test(text)) {
    const ms = Date.parse(`${text}T00:00:00Z`);
    return Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== text ? null : ms;
  }
  if (!DATE_TIME.test(text)) return null;
  const iso = text.replace(' ', 'T');
  const ms = Date.parse(/(Z|[+-]\d{2}:?\d{2})$/i.test(iso) ? iso : `${iso}Z`);
  return Number.isNaN(ms) ? null : ms;
}

export async function importFeedback(records: AsyncIterable<ImportRecord>, options: ImportOptions): Promise<ImportSummary> {
  const { store, policy, project, shared, now } = options;
  const keep = options.keepBadLines ?? 20;
  const summary: ImportSummary = { records: 0, created: 0, replaced: 0, unchanged: 0, badByProblem: new Map(), badLines: [] };
  const writes = new OrderedWrites();
  const bad = (line: number, kind: string, problem: string) => {
    summary.badByProblem.set(kind, (summary.badByProblem.get(kind) ?? 0) + 1);
    if (summary.badLines.length < keep) summary.badLines.push({ line, problem });
  };
  for await (const record of records) {
    summary.records += 1;
    options.onRecord?.();
    if (record.problem) {
      bad(record.line, 'malformed CSV line', record.problem);
      continue;
    }
    const parsed = parseRecord(record.columns, now);
    if (!parsed.ok) {
      bad(record.line, parsed.kind, parsed.problem);
      continue;
    }
    const forms = await storedForms(policy, parsed.email);
    if (forms.domain === null) {
      bad(record.line, 'not an email address', `"${parsed.email.slice(0, 60)}" is not an email address`);
      continue;
    }
    const ipv6 = parsed.ip?.includes(':') ? parsed.ip : null;
    const subject = addressSubject(forms.base, parsed.ip);
    const label: NewLabel = {
      projectId: project.id,
      subject,
      eventId: null,
      decisionId: null,
      email: parsed.email,
      baseEmail: forms.base,
      domain: forms.domain,
      ipv4: parsed.ip !== null && ipv6 === null ? parsed.ip : null,
      ipv6,
      device: null,
      label: parsed.label,
      note: parsed.note,
      source: 'import',
      labelledAt: parsed.labelledAt,
      shared,
    };
    await writes.add(subject, async () => {
      const change: LabelChange = await store.labels.record(label, now);
      summary[change.outcome] += 1;
    });
  }
  await writes.drain();
  return summary;
}

/** Labels written at most this many at a time: the store batches their statements. */
const WRITES_IN_FLIGHT = 16;

/**
 * Writes in flight, at most WRITES_IN_FLIGHT, those of one subject in file order (a later line of an address
 * replaces an earlier one, as it would one at a time). The first failure stops the import.
 */
class OrderedWrites {
  private readonly tails = new Map<string, Promise<void>>();
  private readonly inFlight = new Set<Promise<void>>();
  private failure: unknown = null;

  async add(subject: string, write: () => Promise<void>): Promise<void> {
    if (this.failure !== null) throw this.failure;
    while (this.inFlight.size >= WRITES_IN_FLIGHT) await Promise.race(this.inFlight);
    if (this.failure !== null) throw this.failure;
    const before = this.tails.get(subject) ?? Promise.resolve();
    const done: Promise<void> = before
      .then(write)
      .catch((error: unknown) => {
        this.failure ??= error;
      })
      .finally(() => {
        this.inFlight.delete(done);
        if (this.tails.get(subject) === done) this.tails.delete(subject);
      });
    this.tails.set(subject, done);
    this.inFlight.add(done);
  }

  async drain(): Promise<void> {
    await Promise.all(this.inFlight);
    if (this.failure !== null) throw this.failure;
  }
}

// labels, label_history, label_counts (migration 0015): feedback on decisions and the reputation counters
// written with it.
//
// A change is one optimistic write, in one transaction (on an embedded file by the writer thread, in turn
// with the event commits; elsewhere through knex): the label row is inserted if absent or updated if its
// revision is still the one read, under a new change id, and every other statement (the history row, the
// counters' decrements for the label replaced and increments for the new one) applies only where the row
// carries that change id. Two changes of one subject at once: one wins, the other reads again and retries.
// Same label and note as stored: nothing is written (idempotent).
//
// Counters (docs/decisions/0087): per (project, kind, subject, day, label), and a total row per subject (day
// TOTAL_DAY); under project SHARED_PROJECT as well for a project that shares its reputation. A window read
// is one statement of at most MAX_WINDOW_DAYS + 1 days × the labels' number of rows, whatever the history.
import type { Knex } from 'knex';
import { v7 as uuidv7 } from 'uuid';
import type { LabelTally, Reputation, ReputationReader } from '../engine/plugin.js';
import { networkPrefix } from '../ip-prefix.js';
import { FEEDBACK_LABELS, GOOD_LABEL } from '../vocabulary.js';
import { type BackgroundWrites, backgroundWrites } from './background-writes.js';
import { toBoolean, toNullableNumber, toNumber } from './sql-values.js';
import { limitClause } from './velocity-counters.js';
import type { Reads, Statement } from './velocity-queries.js';

/** The labels feedback takes, bad ones first (the vocabulary's, which plugins read too). */
export const LABELS = FEEDBACK_LABELS;
export type LabelName = (typeof LABELS)[number];
/** The one good label; every other is bad (reported). */
export { GOOD_LABEL };
export const isLabel = (value: unknown): value is LabelName => typeof value === 'string' && (LABELS as readonly string[]).includes(value);
export const isBadLabel = (label: LabelName): boolean => label !== GOOD_LABEL;

/** Longest note kept with a label, in characters. */
export const MAX_NOTE_LENGTH = 500;
/** Longest window a reputation read may ask for, in days. */
export const MAX_WINDOW_DAYS = 365;
export const DAY_MS = 86_400_000;
/** Day of a subject's total row: above every day, so `day >= ?` reads it with the days. */
export const TOTAL_DAY = Number.MAX_SAFE_INTEGER;
/** The project id of the shared counters (never a project's: those are `prj_…`). */
export const SHARED_PROJECT = '*';
/** Most labels one list returns. */
export const MAX_LABEL_LIST = 1_000;

export type CounterKind = 'email' | 'domain' | 'network' | 'device';
export type LabelSource = 'api' | 'import';

/** What a label is about: a decision (its event), or an address (with an IP) labelled without one. */
export interface LabelTarget {
  projectId: string;
  /** `event:<id>`, or `address:<base>` / `address:<base> ip:<ip>` (subjectOf). */
  subject: string;
  eventId: number | null;
  decisionId: string | null;
  /** The address as given (the event's, or the import's). */
  email: string;
  /** Its base form (events.base_email): what email counters and an address's labels are keyed by. */
  baseEmail: string;
  /** The address's domain as the `domain` fact spells it; null when the address has none. */
  domain: string | null;
  ipv4: string | null;
  ipv6: string | null;
  device: string | null;
}

export interface NewLabel extends LabelTarget {
  label: LabelName;
  note: string | null;
  source: LabelSource;
  /** When the outcome was observed (ms): an import's date, else now. Its day is the day the counters count it in. */
  labelledAt: number;
  /** Counted in the shared rows too (the project shares its reputation). */
  shared: boolean;
}

export interface StoredLabel extends NewLabel {
  /** 1 for the first label of the subject, one more for every change. */
  revision: number;
  createdAt: number;
  updatedAt: number;
}

export interface LabelChange {
  /** created: the subject had no label; replaced: it had another label or note; unchanged: the same was stored. */
  outcome: 'created' | 'replaced' | 'unchanged';
  label: StoredLabel;
}

export interface HistoryEntry {
  revision: number;
  label: LabelName;
  note: string | null;
  source: LabelSource;
  labelledAt: number;
  recordedAt: number;
}

export interface LabelFilter {
  projectId: string;
  /** The labels of one base address. */
  baseEmail?: string | null;
  label?: LabelName | null;
  /** 1 to MAX_LABEL_LIST. */
  limit: number;
}

/** One subject's counts: per label, within the window and ever. */
export type LabelCounts = Record<LabelName, { window: number; total: number }>;

export interface CountsQuery {
  kind: CounterKind;
  subject: string;
  /** Project ids whose rows to add up (a project's own, and SHARED_PROJECT for the shared counts). */
  projectIds: readonly string[];
  /** Window length in days, 1 to MAX_WINDOW_DAYS: today and the days before it. */
  windowDays: number;
  now: number;
}

/** Several subjects' counts, as reputation facts read them. */
export interface ReputationCountsQuery {
  /** Project ids whose rows to read: a project's own, and SHARED_PROJECT when it reads the shared counts. */
  projectIds: readonly string[];
  subjects: ReadonlyArray<{ kind: CounterKind; subject: string }>;
  /** Window length in days, 1 to MAX_WINDOW_DAYS: today and the days before it. */
  windowDays: number;
  now: number;
}

export class LabelConflictError extends Error {
  constructor() {
    super('the label changed under this write too many times in a row; send it again');
  }
}

export interface Labels {
  /** Stores the label of its subject: created, replaced (history kept) or unchanged. */
  record(label: NewLabel, now?: number): Promise<LabelChange>;
  /** The subject's current label, or null. */
  get(projectId: string, subject: string): Promise<StoredLabel | null>;
  /** A project's labels, newest change first, at most `limit`. */
  list(filter: LabelFilter): Promise<StoredLabel[]>;
  /** A subject's changes, oldest first, at most `limit`. */
  history(projectId: string, subject: string, limit?: number): Promise<HistoryEntry[]>;
  /** One subject's counts: one bounded statement. */
  counts(query: CountsQuery): Promise<LabelCounts>;
  /**
   * Several subjects' counts, in the order asked, in one bounded statement: at most projectIds × subjects ×
   * (windowDays + 1) × labels rows of label_counts's primary key. Over several projects each (day, label) counts
   * its largest count among them, never their sum: the shared rows already hold a sharing project's own labels.
   */
  reputation(query: ReputationCountsQuery): Promise<LabelCounts[]>;
  /** The reputation facts' reader over reputation(): rows of `projectIds` (reputationProjects gives them). */
  reputationReader(projectIds: readonly string[]): ReputationReader;
  /**
   * The current labels of events (keyed by event id): each event's own label, else its address's with its IP,
   * else its address's alone. Two statements per call, bounded by the number of events asked.
   */
  forEvents(projectId: string, events: readonly { id: number; baseEmail: string; ipv4: string | null; ipv6: string | null }[]): Promise<Map<number, LabelName>>;
}

/** The subject of an event's label. */
export const eventSubject = (eventId: number): string => `event:${eventId}`;

/** The subject of an address's label without a decision, with the IP it came from when known. */
export function addressSubject(baseEmail: string, ip: string | null): string {
  return ip ? `address:${baseEmail} ip:${ip}` : `address:${baseEmail}`;
}

export const dayOf = (ms: number): number => Math.floor(ms / DAY_MS);

/** The (kind, subject) pairs a label counts under. */
export function countedSubjects(label: Pick<LabelTarget, 'baseEmail' | 'domain' | 'ipv4' | 'ipv6' | 'device'>): Array<{ kind: CounterKind; subject: string }> {
  const out: Array<{ kind: CounterKind; subject: string }> = [{ kind: 'email', subject: label.baseEmail }];
  // Lower-cased, as reputation reads it: the `domain` fact keeps the case the address was typed in.
  if (label.domain) out.push({ kind: 'domain', subject: label.domain.toLowerCase() });
  for (const ip of [label.ipv4, label.ipv6]) {
    const network = ip ? networkPrefix(ip) : null;
    if (network) out.push({ kind: 'network', subject: network });
  }
  if (label.device) out.push({ kind: 'device', subject: label.device });
  return out;
}

const LABEL_COLUMNS = [
  'project_id',
  'subject',
  'event_id',
  'decision_id',
  'email',
  'base_email',
  'domain',
  'ipv4',
  'ipv6',
  'device',
  'label',
  'note',
  'source',
  'labelled_at',
  'shared',
  'revision',
  'change_id',
  'created_at',
  'updated_at',
] as const;

type Row = Record<string, unknown>;
/** The bindings of the guard: project, subject, change id. */
type Guard = [string, string, string];
const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

function labelOf(r: Row): StoredLabel & { changeId: string } {
  return {
    projectId: String(r.project_id),
    subject: String(r.subject),
    eventId: toNullableNumber(r.event_id),
    decisionId: text(r.decision_id),
    email: String(r.email),
    baseEmail: String(r.base_email),
    domain: text(r.domain),
    ipv4: text(r.ipv4),
    ipv6: text(r.ipv6),
    device: text(r.device),
    label: String(r.label) as LabelName,
    note: text(r.note),
    source: String(r.source) as LabelSource,
    labelledAt: toNumber(r.labelled_at),
    shared: toBoolean(r.shared),
    revision: toNumber(r.revision),
    changeId: String(r.change_id),
    createdAt: toNumber(r.created_at),
    updatedAt: toNumber(r.updated_at),
  };
}

const withoutChangeId = ({ changeId: _, ...label }: StoredLabel & { changeId: string }): StoredLabel => label;

/**
 * How long a process trusts that a project has no labels before it asks again: a label written by another
 * instance is counted by this one's reputation reads within this time (its own at once).
 */
export const NO_LABELS_TTL_MS = 10_000;

/**
 * Which projects have labels, as this process knows it: the reputation reads of a project that has none (most of
 * them, and every project until its first feedback) cost no statement. Once seen with labels, a project is
 * read for good (counter rows are never deleted); "none" is asked again after NO_LABELS_TTL_MS, in the background
 * (the reads go on trusting it meanwhile), and only a project never asked waits for its first answer (one
 * statement, the first row of its primary-key range).
 */
class LabelPresence {
  private readonly labelled = new Set<string>();
  private readonly none = new Map<string, { checkedAt: number; asking: Promise<void> | null }>();
  private readonly firstAsks = new Map<string, Promise<void>>();

  constructor(private readonly reads: Reads) {}

  /** Labels of this project are stored (this process wrote one). */
  mark(projectId: string): void {
    this.labelled.add(projectId);
    this.none.delete(projectId);
  }

  /** Whether any of the projects has labels. */
  async any(projectIds: readonly string[], now: number): Promise<boolean> {
    for (const projectId of projectIds) {
      if (this.labelled.has(projectId)) return true;
      const known = this.none.get(projectId);
      if (!known) {
        await this.firstAsk(projectId, now);
        if (this.labelled.has(projectId)) return true;
      } else if (now - known.checkedAt >= NO_LABELS_TTL_MS && known.asking === null) {
        known.asking = this.ask(projectId, now).catch(() => {
          known.asking = null; // asked again by a later read
        });
      }
    }
    return false;
  }

  private firstAsk(projectId: string, now: number): Promise<void> {
    let asking = this.firstAsks.get(projectId);
    if (!asking) {
      asking = this.ask(projectId, now).finally(() => this.firstAsks.delete(projectId));
      this.firstAsks.set(projectId, asking);
    }
    return asking;
  }

  private async ask(projectId: string, now: number): Promise<void> {
    const rows = await this.reads.all({ sql: 'select 1 as found from label_counts where project_id = ? limit 1', bindings: [projectId] });
    if (rows.length > 0) this.mark(projectId);
    else if (!this.labelled.has(projectId)) this.none.set(projectId, { checkedAt: now, asking: null });
  }
}

/** Changes of one subject tried before giving up (each loses only to another change of the same subject). */
const MAX_ATTEMPTS = 5;

/** The window's days, checked: 1 to MAX_WINDOW_DAYS. */
function windowDaysOf(windowDays: number): number {
  const days = Math.trunc(windowDays);
  if (!(days >= 1 && days <= MAX_WINDOW_DAYS)) throw new RangeError(`a reputation window is 1 to ${MAX_WINDOW_DAYS} days, not ${windowDays}`);
  return days;
}

/**
 * The one statement of a reputation read: a branch per subject, each a range of the primary key (project, kind,
 * subject, day ≥ the window's first day) per project, the total row included (TOTAL_DAY is above every day).
 */
export function reputationStatement(query: ReputationCountsQuery): Statement {
  const days = windowDaysOf(query.windowDays);
  const { projectIds, subjects } = query;
  const from = dayOf(query.now) - (days - 1);
  const branch = `select project_id, kind, subject, day, label, count from label_counts where project_id in (${projectIds.map(() => '?').join(', ')}) and kind = ? and subject = ? and day >= ?`;
  return {
    sql: `${subjects.map(() => branch).join(' union all ')} ${limitClause(projectIds.length * subjects.length * (days + 1) * LABELS.length)}`,
    bindings: subjects.flatMap(({ kind, subject }) => [...projectIds, kind, subject, from]),
  };
}

/** The projects whose rows a project's reputation facts read: its own, and the shared ones when the deployment and the project share. */
export function reputationProjects(projectId: string, shares: boolean): string[] {
  return shares ? [projectId, SHARED_PROJECT] : [projectId];
}

/** Each label's larger count of two subjects (a request's IPv4 and IPv6 networks: a label with both IPs counts under both). */
function largerOf(a: LabelCounts, b: LabelCounts): LabelCounts {
  const out = emptyCounts();
  for (const label of LABELS) out[label] = { window: Math.max(a[label].window, b[label].window), total: Math.max(a[label].total, b[label].total) };
  return out;
}

const emptyCounts = (): LabelCounts => Object.fromEntries(LABELS.map((label) => [label, { window: 0, total: 0 }])) as LabelCounts;

/** `reads`: the request path's bounded reads (counts); `write`: how a change is stored (background-writes.ts). */
export function createLabels(knex: Knex, reads: Reads, write: BackgroundWrites = backgroundWrites(knex, null)): Labels {
  const table = () => knex('labels');
  const presence = new LabelPresence(reads);

  async function current(projectId: string, subject: string): Promise<(StoredLabel & { changeId: string }) | null> {
    const row = (await table().select(LABEL_COLUMNS).where({ project_id: projectId, subject }).first()) as Row | undefined;
    return row ? labelOf(row) : null;
  }

  /** `where exists` the label row carrying this change: the guard of every statement after the first. */
  const GUARD = 'exists (select 1 from labels where project_id = ? and subject = ? and change_id = ?)';
  const mine = (projectId: string, subject: string, changeId: string): Guard => [projectId, subject, changeId];

  /** Counter statements adding `delta` to a label's rows (its day and the total), its project's and, when shared, the shared ones. */
  function counterStatements(label: NewLabel, delta: 1 | -1, guard: Guard): Knex.Raw[] {
    const projects = label.shared ? [label.projectId, SHARED_PROJECT] : [label.projectId];
    const out: Knex.Raw[] = [];
    for (const project of projects) {
      for (const { kind, subject } of countedSubjects(label)) {
        for (const day of [dayOf(label.labelledAt), TOTAL_DAY]) {
          if (delta === 1) {
            out.push(
              knex.raw(
                `insert into label_counts (project_id, kind, subject, day, label, count) select ?, ?, ?, cast(? as bigint), ?, 1 where ${GUARD} on conflict (project_id, kind, subject, day, label) do update set count = label_counts.count + 1`,
                [project, kind, subject, day, label.label, ...guard],
              ),
            );
          } else {
            out.push(
              knex.raw(`update label_counts set count = count - 1 where project_id = ? and kind = ? and subject = ? and day = ? and label = ? and ${GUARD}`, [
                project,
                kind,
                subject,
                day,
                label.label,
                ...guard,
              ]),
            );
          }
        }
      }
    }
    return out;
  }

  async function attempt(label: NewLabel, now: number): Promise<LabelChange | null> {
    const before = await current(label.projectId, label.subject);
    if (before && before.label === label.label && before.note === label.note) return { outcome: 'unchanged', label: withoutChangeId(before) };
    const changeId = uuidv7();
    const revision = (before?.revision ?? 0) + 1;
    const values = {
      project_id: label.projectId,
      subject: label.subject,
      event_id: label.eventId,
      decision_id: label.decisionId,
      email: label.email,
      base_email: label.baseEmail,
      domain: label.domain,
      ipv4: label.ipv4,
      ipv6: label.ipv6,
      device: label.device,
      label: label.label,
      note: label.note,
      source: label.source,
      labelled_at: label.labelledAt,
      shared: label.shared,
      revision,
      change_id: changeId,
      created_at: before?.createdAt ?? now,
      updated_at: now,
    };
    const first = before
      ? table()
          .where({ project_id: label.projectId, subject: label.subject, revision: before.revision })
          .update({ ...values, created_at: before.createdAt })
      : table().insert(values).onConflict(['project_id', 'subject']).ignore();
    const guard = mine(label.projectId, label.subject, changeId);
    const history = knex.raw(
      `insert into label_history (project_id, subject, label, note, source, labelled_at, revision, change_id, recorded_at) select ?, ?, ?, ?, ?, cast(? as bigint), cast(? as integer), ?, cast(? as bigint) where ${GUARD}`,
      [label.projectId, label.subject, label.label, label.note, label.source, label.labelledAt, revision, changeId, now, ...guard],
    );
    // The counters move only when what they count moves: the label, or the day it counts in.
    const recount = !before || before.label !== label.label || dayOf(before.labelledAt) !== dayOf(label.labelledAt) || before.shared !== label.shared;
    const counters = recount ? [...(before ? counterStatements(before, -1, guard) : []), ...counterStatements(label, 1, guard)] : [];
    await write([first, history, ...counters]);
    // Whether this change applied: its history row exists (a later change may already have replaced the row).
    const applied = await knex('label_history').select('revision').where({ project_id: label.projectId, subject: label.subject, change_id: changeId }).first();
    if (!applied) return null;
    return { outcome: before ? 'replaced' : 'created', label: { ...label, revision, createdAt: values.created_at, updatedAt: now } };
  }

  async function reputationCounts(query: ReputationCountsQuery): Promise<LabelCounts[]> {
    windowDaysOf(query.windowDays);
    const { projectIds, subjects } = query;
    const out = subjects.map(() => emptyCounts());
    if (projectIds.length === 0 || subjects.length === 0) return out;
    const rows = await reads.all(reputationStatement(query));
    // Per subject, day and label: the largest count among the projects (see Labels.reputation).
    const largest = new Map<string, { subject: string; day: number; label: LabelName; count: number }>();
    for (const row of rows) {
      const label = String(row.label);
      if (!isLabel(label)) continue;
      const subject = `${String(row.kind)} ${String(row.subject)}`;
      const day = toNumber(row.day);
      const key = `${subject} ${day} ${label}`;
      const count = toNumber(row.count);
      const held = largest.get(key);
      if (!held) largest.set(key, { subject, day, label, count });
      else if (count > held.count) held.count = count;
    }
    const indexes = new Map<string, number[]>();
    subjects.forEach(({ kind, subject }, i) => {
      const key = `${kind} ${subject}`;
      indexes.set(key, [...(indexes.get(key) ?? []), i]);
    });
    for (const { subject, day, label, count } of largest.values()) {
      for (const i of indexes.get(subject) ?? []) {
        const tally = (out[i] as LabelCounts)[label];
        if (day === TOTAL_DAY) tally.total += count;
        else tally.window += count;
      }
    }
    return out;
  }

  return {
    async record(label, now = Date.now()) {
      for (let i = 0; i < MAX_ATTEMPTS; i += 1) {
        const change = await attempt(label, now);
        if (change) {
          presence.mark(label.projectId);
          if (label.shared) presence.mark(SHARED_PROJECT);
          return change;
        }
      }
      throw new LabelConflictError();
    },

    async get(projectId, subject) {
      const found = await current(projectId, subject);
      return found ? withoutChangeId(found) : null;
    },

    async list(filter) {
      const limit = Math.trunc(filter.limit);
      if (!(limit >= 1 && limit <= MAX_LABEL_LIST)) throw new RangeError(`a list's limit is 1 to ${MAX_LABEL_LIST}, not ${filter.limit}`);
      const query = table().select(LABEL_COLUMNS).where({ project_id: filter.projectId });
      if (filter.baseEmail) query.andWhere({ base_email: filter.baseEmail });
      if (filter.label) query.andWhere({ label: filter.label });
      const rows = (await query.orderBy([{ column: 'updated_at', order: 'desc' }, { column: 'subject' }]).limit(limit)) as Row[];
      return rows.map((row) => withoutChangeId(labelOf(row)));
    },

    async history(projectId, subject, limit = 100) {
      const rows = (await knex('label_history')
        .select('revision', 'label', 'note', 'source', 'labelled_at', 'recorded_at')
        .where({ project_id: projectId, subject })
        .orderBy('revision')
        .limit(limit)) as Row[];
      return rows.map((r) => ({
        revision: toNumber(r.revision),
        label: String(r.label) as LabelName,
        note: text(r.note),
        source: String(r.source) as LabelSource,
        labelledAt: toNumber(r.labelled_at),
        recordedAt: toNumber(r.recorded_at),
      }));
    },

    async counts(query) {
      const days = windowDaysOf(query.windowDays);
      const counts = emptyCounts();
      if (query.projectIds.length === 0) return counts;
      const from = dayOf(query.now) - (days - 1);
      const rows = await reads.all({
        sql: `select day, label, count from label_counts where project_id in (${query.projectIds.map(() => '?').join(', ')}) and kind = ? and subject = ? and day >= ? ${limitClause(query.projectIds.length * (days + 1) * LABELS.length)}`,
        bindings: [...query.projectIds, query.kind, query.subject, from],
      });
      for (const row of rows) {
        const label = String(row.label);
        if (!isLabel(label)) continue;
        const n = toNumber(row.count);
        if (toNumber(row.day) === TOTAL_DAY) counts[label].total += n;
        else counts[label].window += n;
      }
      return counts;
    },

    reputation: (query) => reputationCounts(query),

    reputationReader(projectIds) {
      return {
        async read(q): Promise<Reputation> {
          const subjects: Array<{ kind: CounterKind; subject: string }> = [];
          const asked = (kind: CounterKind, subject: string | null): number | null => {
            if (!subject) return null;
            subjects.push({ kind, subject });
            return subjects.length - 1;
          };
          const email = asked('email', q.baseEmail);
          const domain = asked('domain', q.domain ? q.domain.toLowerCase() : null);
          const v4 = asked('network', q.ipv4 ? networkPrefix(q.ipv4) : null);
          const v6 = asked('network', q.ipv6 ? networkPrefix(q.ipv6) : null);
          const device = asked('device', q.device);
          // No statement for projects without labels: their counts are all 0.
          const counts = (await presence.any(projectIds, q.now))
            ? await reputationCounts({ projectIds, subjects, windowDays: q.windowDays, now: q.now })
            : subjects.map(() => emptyCounts());
          const of = (i: number | null): LabelTally | null => (i === null ? null : (counts[i] as LabelCounts));
          const network = v4 !== null && v6 !== null ? largerOf(counts[v4] as LabelCounts, counts[v6] as LabelCounts) : of(v4 ?? v6);
          return { email: of(email), domain: of(domain), network, device: of(device) };
        },
      };
    },

    async forEvents(projectId, events) {
      const found = new Map<number, LabelName>();
      if (events.length === 0) return found;
      const own = (await table()
        .select('event_id', 'label')
        .where({ project_id: projectId })
        .whereIn(
          'subject',
          events.map((e) => eventSubject(e.id)),
        )) as Row[];
      for (const row of own) found.set(toNumber(row.event_id), String(row.label) as LabelName);
      const rest = events.filter((e) => !found.has(e.id));
      if (rest.length === 0) return found;
      const subjects = new Set<string>();
      for (const e of rest) {
        subjects.add(addressSubject(e.baseEmail, null));
        for (const ip of [e.ipv4, e.ipv6]) if (ip) subjects.add(addressSubject(e.baseEmail, ip));
      }
      const byAddress = (await table()
        .select('subject', 'label')
        .where({ project_id: projectId })
        .whereIn('subject', [...subjects])) as Row[];
      const labelOfSubject = new Map(byAddress.map((row) => [String(row.subject), String(row.label) as LabelName]));
      for (const e of rest) {
        const withIp = [e.ipv4, e.ipv6].map((ip) => (ip ? labelOfSubject.get(addressSubject(e.baseEmail, ip)) : undefined)).find((l) => l !== undefined);
        const label = withIp ?? labelOfSubject.get(addressSubject(e.baseEmail, null));
        if (label) found.set(e.id, label);
      }
      return found;
    },
  };
}

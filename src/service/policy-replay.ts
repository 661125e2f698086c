// `email-trust policy replay`: a project's stored verify events re-decided by a candidate policy, as a
// from → to matrix of actions. Checks on the address itself (structure, lists, typos, risk …) run again
// offline, as at decision time; facts that came from the network or the history (DNS, RDAP, website,
// velocity: the I/O plugins) are taken as recorded with the event (migration 0009), never looked up again.
// A network or history fact the candidate needs and an event lacks (older events, or a fact the deciding
// policy never read) is unknown for that event, as a lookup that failed would be, and named in the report;
// so are the domain facts of a soft_check call, which were not stored (SOFT_CHECK_MARK), reported apart.
import type { FactCatalog } from '../engine/catalog.js';
import { noHistory } from '../engine/no-history.js';
import type { Plugin, ProjectListReader, RequestInput } from '../engine/plugin.js';
import { OFFLINE } from '../network/offline.js';
import type { CompiledPolicy } from '../policy/compile.js';
import { severity } from '../policy/decide.js';
import { evaluate } from '../policy/evaluate.js';
import type { LabelName } from '../store/labels.js';
import { type ReplayEvent, SOFT_CHECK_MARK } from '../store/replay-events.js';
import type { Action } from '../vocabulary.js';
import { type LabelsReport, LabelTally } from './replay-labels.js';

/** Parsed recorded facts kept by their JSON: events of one domain and IP carry the same text again and again. */
const PARSED_KEPT = 10_000;

/** Sample addresses kept per changed cell of the matrix. */
export const SAMPLES_PER_CELL = 3;

export interface ReplayCell {
  from: string;
  to: string;
  count: number;
  /** Up to SAMPLES_PER_CELL addresses, masked (j***@example.com); only for cells whose action changed. */
  samples: string[];
}

/** A network or history fact the candidate needed and some events had not recorded. */
export interface NotReplayed {
  fact: string;
  plugin: string;
  /** Events that lacked it (it was unknown for them). */
  events: number;
  /** The candidate's checks whose evidence includes it: their condition reads it, or their plugin is built on its plugin. */
  checks: string[];
}

/** The soft_check calls replayed without the domain facts the candidate read (they were not stored: unknown for them). */
export interface SoftChecked {
  /** Events that lacked at least one of them. */
  events: number;
  facts: NotReplayed[];
}

export interface ReplayReport {
  policy: { name: string; revision: string };
  events: number;
  changed: number;
  /** Every from → to pair seen, the most severe stored action first. */
  matrix: ReplayCell[];
  before: Record<string, number>;
  after: Record<string, number>;
  not_replayed: NotReplayed[];
  soft_check: SoftChecked;
  /** With labels (ReplaySource.labels): the confusion tables of the stored and the candidate's actions. */
  labels?: LabelsReport;
}

export interface ReplaySource {
  /** The project's stored verify events, in batches (src/store/replay-events.ts). */
  events: AsyncIterable<readonly ReplayEvent[]>;
  /** Decides each batch: in process (batchDecider) or in worker threads (src/cli/replay-pool.ts). */
  decide: BatchDecider;
  /** Batches handed to `decide` before the oldest one's answer is awaited (more than one keeps workers busy). */
  inFlight?: number;
  /** The labels of a batch's events, by event id (labels.ts forEvents): asked per batch, so bounded by it. */
  labels?: (events: readonly ReplayEvent[]) => Promise<ReadonlyMap<number, LabelName>>;
}

/** The candidate's action on each event of a batch, in order, and the recorded facts the batch lacked. */
export interface BatchDecisions {
  actions: string[];
  /** Fact → events of the batch that had not recorded it (it was unknown for them); soft_check's domain facts apart. */
  missing: Record<string, number>;
  /** Domain fact → soft_check events of the batch that lacked it. */
  softChecked: Record<string, number>;
  /** Soft_check events of the batch that lacked at least one domain fact. */
  softCheckedEvents: number;
}

export type BatchDecider = (events: readonly ReplayEvent[]) => Promise<BatchDecisions>;

/**
 * Decides batches in this thread with one compiled policy. Checks on the address run again (the project's
 * lists as they are now, the event's time as the clock); network and history facts come from the event.
 */
export function batchDecider(policy: CompiledPolicy, projectId: string, lists: ProjectListReader): BatchDecider {
  const recordedFacts = ioFacts(policy.catalog);
  let event: ReplayEvent | null = null;
  let facts: Record<string, unknown> | null = null;
  let missing: Record<string, number> = {};
  let softChecked: Record<string, number> = {};
  let lackedDomainFacts = false;
  // Per fact and event at most once: the run caches each fact it has asked for.
  const given = (name: string): unknown => {
    if (!recordedFacts.has(name)) return undefined;
    if (facts !== null && name in facts) return facts[name];
    if (facts?.[SOFT_CHECK_MARK] === true && policy.catalog.owner.get(name)?.network === true) {
      softChecked[name] = (softChecked[name] ?? 0) + 1;
      lackedDomainFacts = true;
    } else {
      missing[name] = (missing[name] ?? 0) + 1;
    }
    return null;
  };
  const services = { velocity: noHistory, network: OFFLINE, lists, now: () => (event as ReplayEvent).createdAt };
  const parsed = new Map<string, Record<string, unknown>>();
  const parse = (json: string) => {
    let value = parsed.get(json);
    if (!value) {
      if (parsed.size >= PARSED_KEPT) parsed.clear();
      value = JSON.parse(json) as Record<string, unknown>;
      parsed.set(json, value);
    }
    return value;
  };
  return async (events) => {
    missing = {};
    softChecked = {};
    let softCheckedEvents = 0;
    const actions: string[] = [];
    for (const e of events) {
      event = e;
      facts = e.recordedFacts === null ? null : parse(e.recordedFacts);
      lackedDomainFacts = false;
      const evaluation = await evaluate(policy, inputOf(e, projectId), services, { given, timed: false });
      // Every fact of the policy's conditions asked for, as before the engine decided replays: the counts of
      // facts missing from the events do not hang on which conditions the engine's short-circuit skipped.
      await evaluation.facts(policy.reads);
      actions.push(evaluation.decision.action);
      if (lackedDomainFacts) softCheckedEvents += 1;
    }
    return { actions, missing, softChecked, softCheckedEvents };
  };
}

/** Re-decides the events with `policy`; `onEvents` hears how many were done after each batch. */
export async function replayPolicy(policy: CompiledPolicy, source: ReplaySource, onEvents: (done: number) => void = () => {}): Promise<ReplayReport> {
  const tally = new Tally();
  const missing = new Map<string, number>();
  const softChecked = new Map<string, number>();
  let softCheckedEvents = 0;
  const labelTally = source.labels ? new LabelTally() : null;
  type Pending = { events: readonly ReplayEvent[]; decided: Promise<BatchDecisions>; labels: Promise<ReadonlyMap<number, LabelName>> | null };
  const pending: Pending[] = [];
  // Answers are taken in batch order, so the samples and the report do not depend on which worker was faster.
  const settle = async () => {
    const oldest = pending.shift();
    if (!oldest) return;
    const decided = await oldest.decided;
    const labels = await oldest.labels;
    oldest.events.forEach((e, i) => {
      tally.add(e.action, decided.actions[i] as Action, e.email);
      labelTally?.add(labels?.get(e.id), e.action, decided.actions[i] as Action);
    });
    add(missing, decided.missing);
    add(softChecked, decided.softChecked);
    softCheckedEvents += decided.softCheckedEvents;
    onEvents(oldest.events.length);
  };
  for await (const events of source.events) {
    const decided = source.decide(events);
    const labels = source.labels ? source.labels(events) : null;
    // Awaited in order by settle(); a later batch's failure must not crash the process first.
    decided.catch(() => undefined);
    labels?.catch(() => undefined);
    pending.push({ events, decided, labels });
    if (pending.length >= (source.inFlight ?? 1)) await settle();
  }
  while (pending.length > 0) await settle();
  return {
    policy: { name: policy.name, revision: policy.revision },
    ...tally.summary(),
    not_replayed: notReplayedOf(policy, missing),
    soft_check: { events: softCheckedEvents, facts: notReplayedOf(policy, softChecked) },
    ...(labelTally ? { labels: labelTally.summary() } : {}),
  };
}

function add(counts: Map<string, number>, more: Record<string, number>): void {
  for (const [fact, n] of Object.entries(more)) counts.set(fact, (counts.get(fact) ?? 0) + n);
}

function notReplayedOf(policy: CompiledPolicy, counts: Map<string, number>): NotReplayed[] {
  return [...counts].map(([fact, events]) => notReplayed(policy, fact, events)).sort((a, b) => b.events - a.events || a.fact.localeCompare(b.fact));
}

function inputOf(e: ReplayEvent, projectId: string): RequestInput {
  return { email: e.email, ipv4: e.ipv4, ipv6: e.ipv6, device: e.device, softCheck: true, projectId };
}

/** Facts of the plugins that do I/O: recorded at decision time, never computed again. */
export function ioFacts(catalog: FactCatalog): ReadonlySet<string> {
  return new Set([...catalog.owner].filter(([, plugin]) => plugin.io === true).map(([fact]) => fact));
}

function notReplayed(policy: CompiledPolicy, fact: string, events: number): NotReplayed {
  const owner = policy.catalog.owner.get(fact) as Plugin;
  const builtOn = (plugin: Plugin): boolean =>
    plugin.needs.some((id) => {
      const needed = policy.catalog.plugins.get(id) as Plugin;
      return needed === owner || builtOn(needed);
    });
  const checks = policy.checks.filter((c) => c.reads.includes(fact) || builtOn(c.plugin)).map((c) => c.name);
  return { fact, plugin: owner.id, events, checks };
}

/** `jane@example.com` → `j***@example.com`: enough to recognise a case, not to read the address. */
export function maskAddress(email: string): string {
  const at = email.lastIndexOf('@');
  const local = at < 0 ? email : email.slice(0, at);
  return `${[...local][0] ?? ''}***${at < 0 ? '' : email.slice(at)}`;
}

class Tally {
  private readonly cells = new Map<string, ReplayCell>();
  private readonly before = new Map<string, number>();
  private readonly after = new Map<string, number>();
  private events = 0;
  private changed = 0;

  add(from: string, to: Action, email: string): void {
    this.events += 1;
    this.before.set(from, (this.before.get(from) ?? 0) + 1);
    this.after.set(to, (this.after.get(to) ?? 0) + 1);
    const key = `${from}\u0000${to}`;
    let cell = this.cells.get(key);
    if (!cell) {
      cell = { from, to, count: 0, samples: [] };
      this.cells.set(key, cell);
    }
    cell.count += 1;
    if (from === to) return;
    this.changed += 1;
    if (cell.samples.length < SAMPLES_PER_CELL) {
      const masked = maskAddress(email);
      if (!cell.samples.includes(masked)) cell.samples.push(masked);
    }
  }

  summary(): Pick<ReplayReport, 'events' | 'changed' | 'matrix' | 'before' | 'after'> {
    const bySeverity = (a: string, b: string) => severity(b as Action) - severity(a as Action) || a.localeCompare(b);
    const counts = (m: Map<string, number>) => Object.fromEntries([...m].sort(([a], [b]) => bySeverity(a, b)));
    return {
      events: this.events,
      changed: this.changed,
      matrix: [...this.cells.values()].sort((a, b) => bySeverity(a.from, b.from) || bySeverity(a.to, b.to)),
      before: counts(this.before),
      after: counts(this.after),
    };
  }
}

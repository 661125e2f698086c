// `email-trust events list|show`: a project's stored decisions for the operator, newest first, filtered by
// address, IP, action and age (each read through an index, bounded: src/store/decisions.ts), and one
// decision whole, by the id its answer carried (X-Decision-Id) or its event id: what was recorded, the
// policy and revision that decided, and whether that revision's text is kept to replay it.
import type { Command } from 'commander';
import ipaddr from 'ipaddr.js';
import { registry } from '../../../plugins/index.js';
import { loadConfig } from '../../config.js';
import { FactCatalog } from '../../engine/catalog.js';
import { PolicyBook } from '../../policy/book.js';
import type { CompiledPolicy } from '../../policy/compile.js';
import { storedForms } from '../../service/address-forms.js';
import type { Store } from '../../store/database.js';
import { MAX_LIST_LIMIT, SCAN_LIMIT } from '../../store/decisions.js';
import { canonicalIp, type DecisionSummary, type StoredDecision } from '../../store/events.js';
import type { Project } from '../../store/projects.js';
import { ACTIONS, VERDICT_ACTIONS } from '../../vocabulary.js';
import { UsageError } from '../errors.js';
import { findProject } from '../projects.js';
import { withStore } from '../with-store.js';
import { parseSince } from './policy-replay.js';

const DEFAULT_LIMIT = 20;
/** Verify's actions, then intelligence's verdicts (allow and block are both). */
const EVENT_ACTIONS = [...new Set<string>([...ACTIONS, ...VERDICT_ACTIONS])];
const MAX_EMAIL_LENGTH = 1_024;

interface ListOptions {
  project: string;
  email?: string;
  ip?: string;
  action?: string;
  since?: string;
  limit: string;
  json: boolean;
}

export function addDecisionCommands(events: Command): void {
  events
    .command('list')
    .description("list a project's stored decisions (verify and intelligence calls), newest first")
    .requiredOption('--project <name-or-id>', 'the project')
    .option(
      '--email <address>',
      'the events of this address and of every address with its base address (no plus tag, no dots on gmail.com), as velocity by email counts them',
    )
    .option('--ip <address>', 'the events from this IPv4 or IPv6 address')
    .option('--action <action>', `the events decided so: ${EVENT_ACTIONS.join(', ')}`)
    .option('--since <age>', 'the events of this trailing window: 30m, 24h, 7d')
    .option('--limit <n>', `at most this many events, 1 to ${MAX_LIST_LIMIT}`, String(DEFAULT_LIMIT))
    .option('--json', 'print a JSON array on stdout', false)
    .action(listEvents);
  events
    .command('show')
    .description('show one stored decision: what was recorded, the policy and revision that decided, the codes and the request id')
    .argument('<id>', 'the decision id an answer carried (X-Decision-Id), or the event id `events list` prints')
    .option('--json', 'print one JSON object on stdout', false)
    .action(showEvent);
}

/** The options checked; every refusal names its option. */
export function parseListOptions(opts: ListOptions, now: number) {
  const limit = Number(opts.limit);
  if (!/^\d+$/.test(opts.limit.trim()) || limit < 1 || limit > MAX_LIST_LIMIT)
    throw new UsageError(`--limit must be a whole number from 1 to ${MAX_LIST_LIMIT}, got "${opts.limit}"`);
  if (opts.action !== undefined && !EVENT_ACTIONS.includes(opts.action))
    throw new UsageError(`--action must be one of ${EVENT_ACTIONS.join(', ')}; got "${opts.action}"`);
  let ip: string | null = null;
  if (opts.ip !== undefined) {
    if (!ipaddr.IPv4.isValidFourPartDecimal(opts.ip.trim()) && !ipaddr.IPv6.isValid(opts.ip.trim()))
      throw new UsageError(`--ip must be an IPv4 address such as 203.0.113.7 or an IPv6 address such as 2001:db8::1, got "${opts.ip}"`);
    ip = canonicalIp(opts.ip);
  }
  const email = opts.email?.trim();
  if (email !== undefined && (email === '' || email.length > MAX_EMAIL_LENGTH))
    throw new UsageError(`--email must be an address of 1 to ${MAX_EMAIL_LENGTH} characters`);
  return { limit, action: opts.action ?? null, ip, email: email ?? null, since: opts.since === undefined ? null : now - parseSince(opts.since) };
}

/** The project's policy as the service compiles it; the default policy when it cannot be had (its problem is `project show`'s to tell). */
export function policyOf(project: Project): CompiledPolicy {
  const book = PolicyBook.load(loadConfig().policiesDir, new FactCatalog(registry));
  try {
    return book.forProject(project);
  } catch {
    return book.byName('default') as CompiledPolicy;
  }
}

async function listEvents(opts: ListOptions): Promise<void> {
  const o = parseListOptions(opts, Date.now());
  const { events, bounded } = await withStore(async (store) => {
    const project = await findProject(store, opts.project);
    const email = o.email === null ? null : await storedForms(policyOf(project), o.email);
    return store.events.list({ projectId: project.id, email, ip: o.ip, action: o.action, since: o.since, limit: o.limit });
  });
  if (bounded) {
    console.error(
      `note: only the newest ${SCAN_LIMIT.toLocaleString('en')} events of the ${o.email !== null ? 'address' : o.ip !== null ? 'IP' : 'project'} were searched; narrow it with --since to look further back`,
    );
  }
  if (opts.json) {
    console.log(JSON.stringify(events.map(summaryJson)));
    return;
  }
  if (events.length === 0) console.log(`no events of project ${opts.project} match`);
  for (const e of events) console.log(summaryLine(e));
}

const iso = (ms: number) => new Date(ms).toISOString();

/** The codes of a decision in one field: `errors=… warnings=…`, intelligence's `parent_rule=N`, or `-`. */
function codesText(e: DecisionSummary): string {
  const parts = [
    ...(e.errors.length > 0 ? [`errors=${e.errors.join(',')}`] : []),
    ...(e.warnings.length > 0 ? [`warnings=${e.warnings.join(',')}`] : []),
    ...(e.parentRule !== null ? [`parent_rule=${e.parentRule}`] : []),
  ];
  return parts.length > 0 ? parts.join(' ') : '-';
}

function ipsText(e: Pick<DecisionSummary, 'ipv4' | 'ipv6'>): string {
  const ips = [e.ipv4, e.ipv6].filter((ip) => ip !== null);
  return ips.length > 0 ? ips.join(',') : '-';
}

function summaryLine(e: DecisionSummary): string {
  return [e.id, iso(e.createdAt), e.endpoint, e.action, e.email, ipsText(e), codesText(e)].join('  ');
}

function summaryJson(e: DecisionSummary) {
  return {
    id: e.id,
    decision_id: e.decisionId,
    created_at: iso(e.createdAt),
    endpoint: e.endpoint,
    action: e.action,
    email: e.email,
    ipv4: e.ipv4,
    ipv6: e.ipv6,
    errors: e.errors,
    warnings: e.warnings,
    parent_rule: e.parentRule,
  };
}

/** The event of an event id (digits) or of a decision id. */
export function findEvent(store: Store, id: string): Promise<StoredDecision | null> {
  const text = id.trim();
  return /^\d{1,15}$/.test(text) ? store.events.get(Number(text)) : store.events.findDecision(null, text);
}

async function showEvent(id: string, opts: { json: boolean }): Promise<void> {
  const shown = await withStore(async (store) => {
    const event = await findEvent(store, id);
    if (!event) return null;
    const project = await store.projects.get(event.projectId);
    const textStored = event.policyRevision === null ? false : (await store.policyRevisions.get(event.policyRevision)) !== null;
    return { event, project, textStored };
  });
  if (!shown) throw new UsageError(`no stored event with the decision id or event id "${id}"; see \`email-trust events list --project NAME\``);
  const { event: e, project, textStored } = shown;
  if (opts.json) {
    console.log(JSON.stringify(eventJson(e, project, textStored)));
    return;
  }
  console.log(eventText(e, project, textStored).join('\n'));
}

function eventJson(e: StoredDecision, project: Project | null, textStored: boolean) {
  return {
    ...summaryJson(e),
    request_id: e.requestId,
    project: { id: e.projectId, name: project?.name ?? null },
    email_lower: e.emailLower,
    base_email: e.baseEmail,
    domain: e.domain,
    device: e.device,
    fingerprint_token: e.fingerprintToken,
    risk_score: e.riskScore,
    policy: { name: e.policyName, revision: e.policyRevision, text_stored: textStored },
    recorded_facts: e.recordedFacts,
  };
}

/** What a revision's text being kept or not means for explaining the decision. */
function revisionNote(e: StoredDecision, textStored: boolean): string {
  if (e.policyRevision === null) return 'no revision recorded (an event stored before policy revisions were)';
  if (textStored) return 'its text is stored';
  if (e.policyRevision.startsWith('custom:')) return "its text is not stored (a request's custom_policy)";
  return 'its text is not stored';
}

function eventText(e: StoredDecision, project: Project | null, textStored: boolean): string[] {
  const dash = (value: string | number | null) => (value === null ? '-' : String(value));
  const forms = [e.emailLower !== null && e.emailLower !== e.email ? `lower-cased ${e.emailLower}` : null, `base ${e.baseEmail}`].filter(Boolean);
  const facts = Object.entries(e.recordedFacts ?? {});
  const lines = [
    `event ${e.id}${e.decisionId === null ? '' : `, decision ${e.decisionId}`}`,
    `  time         ${iso(e.createdAt)}`,
    `  project      ${project?.name ?? '(deleted)'} (${e.projectId})`,
    `  endpoint     ${e.endpoint}`,
    `  request id   ${dash(e.requestId)}`,
    `  address      ${e.email} (${forms.join(', ')})`,
    `  domain       ${dash(e.domain)}`,
    `  ips          ${ipsText(e)}`,
    `  device       ${dash(e.device)}`,
    `  action       ${e.action}`,
    `  risk score   ${dash(e.riskScore)}`,
    `  errors       ${e.errors.length > 0 ? e.errors.join(', ') : '-'}`,
    `  warnings     ${e.warnings.length > 0 ? e.warnings.join(', ') : '-'}`,
    ...(e.parentRule !== null ? [`  parent rule  ${e.parentRule}`] : []),
    `  policy       ${dash(e.policyName)}, revision ${dash(e.policyRevision)}: ${revisionNote(e, textStored)}`,
    facts.length > 0 ? '  recorded facts:' : '  recorded facts: none',
    ...facts.map(([name, value]) => `    ${name}: ${JSON.stringify(value)}`),
  ];
  return lines;
}

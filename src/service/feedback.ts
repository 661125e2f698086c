// POST /v1/feedback: an outcome (fraud, a bounce, a real customer …) told about one decision of the key's
// project, stored as that decision's label (store/labels.ts): the reputation facts count it, and
// `policy replay --labels` measures policies against it. The decision is named by its id (X-Decision-Id, or
// the event id) or by an address (its newest decision, from an IP when one is given). A decision of another
// project, or none, is a 404: the caller cannot tell the two apart.
import createError from 'http-errors';
import type { StoredDecision } from '../store/decisions.js';
import { canonicalIp } from '../store/events.js';
import { eventSubject, type LabelChange, LabelConflictError, type LabelName, type NewLabel } from '../store/labels.js';
import type { Project } from '../store/projects.js';
import { storedForms } from './address-forms.js';
import type { ServiceContext } from './context.js';

export interface FeedbackRequest {
  decision_id?: string;
  email_address?: string;
  ipv4_address?: string;
  ipv6_address?: string;
  label: LabelName;
  note?: string;
}

export interface FeedbackAnswer {
  /** The decision had no label before (201). */
  created: boolean;
  body: FeedbackBody;
}

export interface FeedbackBody {
  outcome: LabelChange['outcome'];
  label: LabelName;
  note: string | null;
  decision_id: string | null;
  event_id: number;
  email_address: string;
  revision: number;
  labelled_at: string;
  updated_at: string;
}

/** An event id as `decision_id`: digits, within what an id column holds. */
const EVENT_ID = /^[1-9][0-9]{0,15}$/;

export async function recordFeedback(ctx: ServiceContext, project: Project, request: FeedbackRequest): Promise<FeedbackAnswer> {
  const decision = await findNamedDecision(ctx, project, request);
  const now = ctx.now();
  const label: NewLabel = {
    projectId: project.id,
    subject: eventSubject(decision.id),
    eventId: decision.id,
    decisionId: decision.decisionId,
    email: decision.email,
    baseEmail: decision.baseEmail,
    domain: decision.domain,
    ipv4: decision.ipv4,
    ipv6: decision.ipv6,
    device: decision.device,
    label: request.label,
    note: request.note ?? null,
    source: 'api',
    labelledAt: now,
    shared: sharesReputation(ctx, project),
  };
  const change = await ctx.store.labels.record(label, now).catch((error: unknown) => {
    // Other calls kept changing this decision's label while this one tried: the caller may send it again.
    if (error instanceof LabelConflictError) throw createError(409, `label: ${error.message}`);
    throw error;
  });
  const stored = change.label;
  return {
    created: change.outcome === 'created',
    body: {
      outcome: change.outcome,
      label: stored.label,
      note: stored.note,
      decision_id: stored.decisionId,
      event_id: decision.id,
      email_address: stored.email,
      revision: stored.revision,
      labelled_at: new Date(stored.labelledAt).toISOString(),
      updated_at: new Date(stored.updatedAt).toISOString(),
    },
  };
}

/** Whether the project's labels count in the deployment's shared reputation too. */
export function sharesReputation(ctx: Pick<ServiceContext, 'config'>, project: Project): boolean {
  return ctx.config.sharedReputation && project.sharesReputation;
}

async function findNamedDecision(ctx: ServiceContext, project: Project, request: FeedbackRequest): Promise<StoredDecision> {
  const byId = request.decision_id;
  const email = request.email_address;
  if (byId !== undefined && email !== undefined) throw createError(400, 'decision_id: name the decision by decision_id or by email_address, not both');
  if (byId === undefined && email === undefined) throw createError(400, 'decision_id: is required (or email_address: the newest decision on that address)');
  if (byId !== undefined && (request.ipv4_address !== undefined || request.ipv6_address !== undefined)) {
    throw createError(400, `${request.ipv4_address !== undefined ? 'ipv4_address' : 'ipv6_address'}: names a decision only with email_address`);
  }
  if (request.ipv4_address !== undefined && request.ipv6_address !== undefined)
    throw createError(400, 'ipv6_address: give ipv4_address or ipv6_address, not both');

  const find = byId !== undefined ? () => decisionById(ctx, project, byId) : () => newestOfAddress(ctx, project, email as string, request);
  // A decision answered a moment ago may still be on its way to the database (events are written in batches).
  const decision = (await find()) ?? (await ctx.store.events.flush().then(find));
  if (decision) return decision;
  throw createError(
    404,
    byId !== undefined
      ? 'decision_id: no decision of this project has this id (an X-Decision-Id or an event id)'
      : `email_address: no decision of this project on this address${request.ipv4_address || request.ipv6_address ? ' from this IP' : ''}`,
  );
}

async function decisionById(ctx: ServiceContext, project: Project, id: string): Promise<StoredDecision | null> {
  if (EVENT_ID.test(id)) {
    const event = await ctx.store.events.get(Number(id));
    return event && event.projectId === project.id ? event : null;
  }
  return ctx.store.events.findDecision(project.id, id);
}

async function newestOfAddress(ctx: ServiceContext, project: Project, email: string, request: FeedbackRequest): Promise<StoredDecision | null> {
  const forms = await storedForms(ctx.policies.forProject(project), email);
  const ip = canonicalIp(request.ipv4_address ?? request.ipv6_address);
  const { events } = await ctx.store.events.list({ projectId: project.id, email: forms, ip, limit: 1 });
  const [newest] = events;
  return newest ? ctx.store.events.get(newest.id) : null;
}

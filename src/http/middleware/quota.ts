// The monthly quota at the HTTP edge: a project past its quota (service/quota.ts) gets 429, in the
// endpoint's error shape, with Retry-After until the month renews.
import type { Context } from 'koa';
import { type Quota, QuotaExceededError } from '../../service/quota.js';
import type { Project } from '../../store/projects.js';

export async function admitQuota(ctx: Context, quota: Quota, project: Project): Promise<void> {
  try {
    await quota.admit(project);
  } catch (caught) {
    if (!(caught instanceof QuotaExceededError)) throw caught;
    ctx.set('Retry-After', String(caught.retryAfterSeconds));
    ctx.throw(429, caught.message);
  }
}

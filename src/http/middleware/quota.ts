// The monthly quota at the HTTP edge: a project past its quota (service/quota.ts) gets 429, in the
// endpoint's error shape, with Retry-After and RateLimit until the month renews; a call it admits counts only if served.
import type { Context } from 'koa';
import { type Quota, QuotaExceededError } from '../../service/quota.js';
import type { Project } from '../../store/projects.js';
import { setRefusalHeaders } from './rate-limit.js';

export async function withinQuota<T>(ctx: Context, quota: Quota, project: Project, call: () => Promise<T>): Promise<T> {
  try {
    return await quota.serve(project, call);
  } catch (caught) {
    if (!(caught instanceof QuotaExceededError)) throw caught;
    setRefusalHeaders(ctx, { policy: 'quota', quota: caught.quota, windowSeconds: caught.windowSeconds, resetSeconds: caught.retryAfterSeconds });
    ctx.throw(429, caught.message);
  }
}

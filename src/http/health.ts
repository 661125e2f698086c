// GET /healthz: the process answers (no database, no auth: a liveness probe restarts the process when
// this fails). GET /readyz: whether this instance should get traffic: every readiness probe passes
// (service/readiness.ts: the database within a bounded wait, the policies, Redis when configured) and it
// is not shutting down; otherwise 503 naming the failing parts. An optional part that fails (Redis) is
// named in `degraded`, in both bodies. Both /readyz bodies carry what the
// readiness informers say (`policies`: the active revision of each policy; `network`: whether the network
// checks run and the DNS servers they ask). Neither needs a key.
import type Router from '@koa/router';
import type { Readiness, ReadinessReport } from '../service/readiness.js';
import { requestIdOf } from './middleware/request-log.js';

const degraded = (report: ReadinessReport) => (report.degraded.length > 0 ? { degraded: report.degraded } : {});

export function addHealthRoutes(router: Router, readiness: Readiness): void {
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/readyz', async (ctx) => {
    const report = await readiness.check();
    if (report.ready) {
      ctx.body = { status: 'ready', checks: report.checks, ...degraded(report), ...report.info };
      return;
    }
    ctx.status = 503;
    ctx.body = {
      status: 'unavailable',
      error: `not ready: ${report.failing.map((name) => `${name} (${report.checks[name]?.reason ?? 'failed'})`).join(', ')}`,
      failing: report.failing,
      checks: report.checks,
      ...degraded(report),
      ...report.info,
      id: requestIdOf(ctx),
    };
  });
}

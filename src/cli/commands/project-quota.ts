// `email-trust project set-quota|usage`: a project's monthly quota (verify and intelligence calls per
// calendar month, UTC; none by default; sandbox projects never count) and its counts for this month and
// the last: the served calls running services have stored, each with its event (service/quota.ts). Setting
// a quota this month's count has already reached warns on stderr: every call is then refused.
import { type Command, InvalidArgumentError } from 'commander';
import { nextMonthStart } from '../../service/quota.js';
import { monthOf } from '../../store/usage.js';
import { UsageError } from '../errors.js';
import { findProject, projectSummary } from '../projects.js';
import { withStore } from '../with-store.js';

const MAX_QUOTA = 1_000_000_000_000;

export function addProjectQuotaCommands(project: Command): void {
  project
    .command('set-quota')
    .description('set the monthly quota: verify and intelligence calls per calendar month (UTC); running services apply it within 5 seconds')
    .argument('<name-or-id>', 'the project')
    .argument('[calls]', 'calls per month, a whole number (0 refuses every call)', quotaArgument)
    .option('--none', 'clear the quota: the project is never refused for quota (the default)', false)
    .option('--json', 'print one JSON object on stdout', false)
    .action(setQuota);
  project
    .command('usage')
    .description("print the project's counted calls this month and last month (UTC), and its quota")
    .argument('<name-or-id>', 'the project')
    .option('--json', 'print one JSON object on stdout', false)
    .action(printUsage);
}

function quotaArgument(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > MAX_QUOTA) throw new InvalidArgumentError(`a quota is a whole number of calls from 0 to ${MAX_QUOTA}`);
  return Number(value);
}

async function setQuota(nameOrId: string, calls: number | undefined, opts: { none: boolean; json: boolean }): Promise<void> {
  if (opts.none === (calls !== undefined)) throw new UsageError('give either a number of calls per month or --none to clear the quota');
  const monthlyQuota = opts.none ? null : (calls as number);
  const now = Date.now();
  const month = monthOf(now);
  const { updated, used } = await withStore(async (store) => {
    const changed = await store.projects.update((await findProject(store, nameOrId)).id, { monthlyQuota });
    return { updated: changed, used: changed ? await store.usage.get(changed.id, month) : 0 };
  });
  if (!updated) throw new UsageError(`no project named or with id "${nameOrId}"; see \`email-trust project list\``);
  const warning = updated.sandbox ? null : overQuotaWarning(updated.monthlyQuota, used, month, nextMonthStart(now));
  if (warning) console.error(`warning: ${warning}`);
  if (opts.json) {
    console.log(
      JSON.stringify({
        project: projectSummary(updated),
        monthly_quota: updated.monthlyQuota,
        month: { month, calls: used },
        ...(warning ? { warning } : {}),
      }),
    );
    return;
  }
  const what = updated.monthlyQuota === null ? 'no monthly quota' : `a monthly quota of ${updated.monthlyQuota} calls`;
  const sandbox = updated.sandbox ? ' (a sandbox project: its calls never count)' : '';
  console.log(`Project "${updated.name}" (${updated.id}) has ${what}${sandbox}; running services apply it within 5 seconds.`);
}

/** What to tell an operator who sets a quota this month's calls have already reached; null when they have not (or none were made). */
function overQuotaWarning(quota: number | null, used: number, month: string, renewsAt: number): string | null {
  if (quota === null || used === 0 || used < quota) return null;
  const reached = used > quota ? `past the new quota of ${quota}` : `the whole new quota of ${quota}`;
  return `this month (${month}) the project has already made ${used} counted calls, ${reached}: its verify and intelligence calls are refused (429) until ${new Date(renewsAt).toISOString()}`;
}

async function printUsage(nameOrId: string, opts: { json: boolean }): Promise<void> {
  const now = Date.now();
  const thisMonth = monthOf(now);
  const d = new Date(now);
  const lastMonth = monthOf(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - 1, 1));
  const { project, current, previous } = await withStore(async (store) => {
    const found = await findProject(store, nameOrId);
    return { project: found, current: await store.usage.get(found.id, thisMonth), previous: await store.usage.get(found.id, lastMonth) };
  });
  if (opts.json) {
    console.log(
      JSON.stringify({
        project: projectSummary(project),
        sandbox: project.sandbox,
        monthly_quota: project.monthlyQuota,
        months: [
          { month: thisMonth, calls: current },
          { month: lastMonth, calls: previous },
        ],
      }),
    );
    return;
  }
  const quota = project.monthlyQuota === null ? 'no quota' : `quota ${project.monthlyQuota}`;
  console.log(`${project.name} (${project.id})${project.sandbox ? ' (sandbox: calls are not counted)' : ''}, ${quota}`);
  const left = project.monthlyQuota === null ? '' : `  (${Math.max(0, project.monthlyQuota - current)} left)`;
  console.log(`${thisMonth}  ${current} calls${left}`);
  console.log(`${lastMonth}  ${previous} calls`);
}

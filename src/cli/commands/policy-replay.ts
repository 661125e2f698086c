// `email-trust policy replay`: how a candidate policy would have decided a project's stored verify events
// (src/service/policy-replay.ts), as a from → to matrix of actions; with --labels, beside the labels feedback gave
// the events (src/service/replay-labels.ts).
import { availableParallelism } from 'node:os';
import { basename, resolve } from 'node:path';
import type { Command } from 'commander';
import { registry } from '../../../plugins/index.js';
import { loadConfig } from '../../config.js';
import { FactCatalog } from '../../engine/catalog.js';
import { loadPolicy } from '../../policy/load.js';
import { batchDecider, replayPolicy } from '../../service/policy-replay.js';
import type { Store } from '../../store/database.js';
import type { Project } from '../../store/projects.js';
import { countReplayEvents, type ReplayEvent, replayEvents } from '../../store/replay-events.js';
import { Progress } from '../bulk/progress.js';
import { UsageError } from '../errors.js';
import { findProject } from '../projects.js';
import { replayJson, replayText } from '../replay-output.js';
import { openReplayPool, poolAvailable } from '../replay-pool.js';
import { withStore } from '../with-store.js';

const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
/** Events read per query: large enough that a query's overhead is small, small enough to stay light on memory. */
const BATCH_SIZE = 5_000;
/** Most worker threads a replay starts. */
const MAX_WORKERS = 16;

interface ReplayOptions {
  project: string;
  policy: string;
  since: string;
  json: boolean;
  labels: boolean;
  workers?: string;
}

export function addPolicyReplayCommand(policy: Command): void {
  policy
    .command('replay')
    .description("re-decide a project's stored verify events with a candidate policy: how the actions would shift (from → to)")
    .requiredOption('--project <name-or-id>', 'the project whose events to replay')
    .requiredOption('--policy <file>', 'the candidate policy file')
    .option('--since <age>', 'replay the events of this trailing window: 30m, 12h, 7d (at most the retention, VELOCITY_RETENTION_DAYS)', '7d')
    .option('--workers <n>', `worker threads deciding the events, 0…${MAX_WORKERS}; 0 decides on the main thread (default: one per core)`)
    .option(
      '--labels',
      "join the events with their labels (email-trust feedback): a confusion table of block or challenge against the labels, for the actions stored with the events and for the candidate's",
      false,
    )
    .option('--json', 'print the result as JSON', false)
    .action(replay);
}

/** `7d` → milliseconds; a refusal names the option and the forms it takes. */
export function parseSince(text: string): number {
  const match = /^([1-9]\d{0,5})([mhd])$/.exec(text.trim());
  if (!match) throw new UsageError(`--since must be a number and a unit, m (minutes), h (hours) or d (days), such as 7d or 12h; got "${text}"`);
  return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
}

function parseWorkers(text: string | undefined): number {
  if (text === undefined) return Math.min(MAX_WORKERS, availableParallelism());
  const n = Number(text);
  if (!/^\d+$/.test(text.trim()) || n > MAX_WORKERS) throw new UsageError(`--workers must be an integer from 0 to ${MAX_WORKERS}, got "${text}"`);
  return n;
}

async function replay(opts: ReplayOptions): Promise<void> {
  const config = loadConfig();
  const wanted = parseSince(opts.since);
  const asked = parseWorkers(opts.workers);
  const workers = poolAvailable() ? asked : 0;
  const candidate = loadPolicy({ name: basename(opts.policy), file: opts.policy }, new FactCatalog(registry));
  const retention = config.velocityRetentionDays * UNIT_MS.d;
  const started = Date.now();
  const since = started - Math.min(wanted, retention);
  await withStore(async (store) => {
    const project = await findProject(store, opts.project);
    const window = { projectId: project.id, since, batchSize: BATCH_SIZE };
    const progress = new Progress({ total: await countReplayEvents(store.knex, window), done: 0 });
    const pool =
      workers > 0
        ? openReplayPool(workers, { file: resolve(opts.policy), name: candidate.name, projectId: project.id, lists: await listsOf(store, project) })
        : null;
    let report: Awaited<ReturnType<typeof replayPolicy>>;
    try {
      const decide = pool?.decide ?? batchDecider(candidate, project.id, store.projectLists.reader(project));
      const labels = opts.labels ? (events: readonly ReplayEvent[]) => store.labels.forEvents(project.id, events) : undefined;
      const source = { events: replayEvents(store.knex, window), decide, inFlight: pool?.inFlight ?? 1, ...(labels ? { labels } : {}) };
      report = await replayPolicy(candidate, source, (n) => {
        progress.tick(n);
      });
    } finally {
      progress.end();
      await pool?.close();
    }
    const run = {
      project: { id: project.id, name: project.name },
      file: opts.policy,
      since: { at: since, asked: opts.since, bounded_by_retention: wanted > retention },
      seconds: (Date.now() - started) / 1000,
      report,
    };
    console.log(opts.json ? replayJson(run) : replayText(run));
  });
}

/** The project's own lists as they are now, for the workers (each list read once). */
async function listsOf(store: Store, project: Project): Promise<Record<string, string[]>> {
  const reader = store.projectLists.reader(project);
  const names = [...new FactCatalog(registry).listOwner.keys()];
  return Object.fromEntries(await Promise.all(names.map(async (name) => [name, [...(await reader.entries(name))]])));
}

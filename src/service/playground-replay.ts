// The playground's replay (`replay: true` on POST /v1/playground/evaluate): the text in the editor re-deciding
// the sandbox project's stored verify events, with their labels, as `policy replay --labels` does. On the
// service's own event loop, so bounded: the window's first PLAYGROUND_REPLAY_EVENTS events, decided in batches
// of PLAYGROUND_REPLAY_BATCH between the store's reads: on 2 busy shared cores 250 events held the loop 10–22 ms,
// 100 hold it 4–10 ms (the middle half of ten runs), so the 2,000 take some 200 ms in all.
import type { CompiledPolicy } from '../policy/compile.js';
import type { Project } from '../store/projects.js';
import { countReplayEvents, type ReplayEvent, replayEvents } from '../store/replay-events.js';
import type { ServiceContext } from './context.js';
import { batchDecider, type ReplayReport, replayPolicy } from './policy-replay.js';

/** Most events one playground replay decides. */
export const PLAYGROUND_REPLAY_EVENTS = 2_000;
/** Events read and decided at a time. */
export const PLAYGROUND_REPLAY_BATCH = 100;
/** The window replayed, at most the retention. */
const WINDOW_MS = 7 * 86_400_000;

export interface PlaygroundReplay extends ReplayReport {
  /** Start of the window (ISO 8601): the last 7 days, or the retention when shorter. */
  since: string;
  /** Verify events of the project in the window; more than `events` when the replay stopped at PLAYGROUND_REPLAY_EVENTS. */
  stored: number;
}

/** The sandbox project's stored verify events of the window, re-decided by `policy`, beside their labels. */
export async function playgroundReplay(ctx: ServiceContext, project: Project, policy: CompiledPolicy): Promise<PlaygroundReplay> {
  const since = ctx.now() - Math.min(WINDOW_MS, ctx.config.velocityRetentionDays * 86_400_000);
  const window = { projectId: project.id, since, batchSize: PLAYGROUND_REPLAY_BATCH };
  const stored = await countReplayEvents(ctx.store.knex, window);
  const report = await replayPolicy(policy, {
    events: firstEvents(replayEvents(ctx.store.knex, window), PLAYGROUND_REPLAY_EVENTS),
    decide: batchDecider(policy, project.id, ctx.store.projectLists.reader(project)),
    labels: (events) => ctx.store.labels.forEvents(project.id, events),
  });
  return { ...report, since: new Date(since).toISOString(), stored };
}

async function* firstEvents(batches: AsyncGenerator<ReplayEvent[]>, most: number): AsyncGenerator<ReplayEvent[]> {
  let left = most;
  for await (const batch of batches) {
    yield batch.length > left ? batch.slice(0, left) : batch;
    left -= batch.length;
    if (left <= 0) {
      await batches.return(undefined);
      return;
    }
  }
}

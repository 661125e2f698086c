// How old each data list is, from the plugins' declarations: since its snapshot date (shipped) or since its
// update was fetched (DATA_DIR), against the maximum age its upstream sets. `email-trust data` prints it;
// `serve` warns at start and /readyz reports `data` degraded while a list is past its maximum age.
import type { DataList, Plugin } from '../engine/plugin.js';
import type { DataAgeSample } from '../metrics.js';

const DAY_MS = 86_400_000;

export interface DataAge {
  /** When the data is from (ms): the fetch of an installed update, else the snapshot date. */
  since: number;
  ageDays: number;
  /** Its upstream's; null without one (a list without upstream never goes stale here). */
  maxAgeDays: number | null;
  stale: boolean | null;
}

export function dataAge(list: DataList, now: number): DataAge {
  const since = list.installed ? Date.parse(list.installed.fetchedAt) : Date.parse(`${list.date}T00:00:00Z`);
  const maxAgeDays = list.upstream?.maxAgeDays ?? null;
  return {
    since,
    ageDays: Math.max(0, Math.floor((now - since) / DAY_MS)),
    maxAgeDays,
    stale: maxAgeDays === null ? null : now - since > maxAgeDays * DAY_MS,
  };
}

/** Each list past its maximum age, as `plugin/list (N days old, at most M)`, in registry order. */
export function staleLists(plugins: readonly Plugin[], now: number): string[] {
  return plugins.flatMap((plugin) =>
    (plugin.data ?? []).flatMap((list) => {
      const age = dataAge(list, now);
      return age.stale ? [`${plugin.id}/${list.name} (${age.ageDays} days old, at most ${age.maxAgeDays})`] : [];
    }),
  );
}

/** The operator's sentence for stale lists: which, and what to do. */
export function staleAdvice(stale: readonly string[]): string {
  return `data lists past their maximum age: ${stale.join(', ')}; run \`email-trust data update\` (a daily CronJob with this DATA_DIR), then SIGHUP or DATA_RELOAD_INTERVAL; DATA_AGE_CHECK=off silences this`;
}

/** Every list's age in seconds, and its maximum age, for the gauges of src/metrics.ts. */
export function dataAgeSamples(plugins: readonly Plugin[], now: number): DataAgeSample[] {
  return plugins.flatMap((plugin) =>
    (plugin.data ?? []).map((list) => {
      const age = dataAge(list, now);
      return {
        list: `${plugin.id}/${list.name}`,
        ageSeconds: Math.max(0, (now - age.since) / 1000),
        maxAgeSeconds: age.maxAgeDays === null ? null : (age.maxAgeDays * DAY_MS) / 1000,
      };
    }),
  );
}

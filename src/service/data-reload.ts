// The data lists read again while the service answers (issue 51): on SIGHUP and every DATA_RELOAD_INTERVAL
// seconds, each plugin that can (Plugin.reloadData) reads its lists again, an update installed by
// `email-trust data update` in DATA_DIR first, and swaps them in whole; no request waits on it. One reload
// at a time: a signal during one joins it.
import type { Logger } from 'pino';
import type { DataList, Plugin } from '../engine/plugin.js';

export interface DataReload {
  /** Reads the lists again; resolves when every plugin has (a plugin's failure is logged, its lists stay). */
  reload(): Promise<void>;
  stop(): void;
}

/** `plugin/list` of every list loaded from an update, with its fetch time: what a reload changed, in the log. */
const updatedLists = (plugins: readonly Plugin[]): string[] =>
  plugins.flatMap((plugin) =>
    (plugin.data ?? [])
      .filter((list): list is DataList & Required<Pick<DataList, 'installed'>> => list.installed !== undefined)
      .map((list) => `${plugin.id}/${list.name} ${list.installed.fetchedAt}`),
  );

export function startDataReload(plugins: readonly Plugin[], options: { intervalSeconds: number; log: Logger }): DataReload {
  let running: Promise<void> | null = null;
  const reloadable = plugins.filter((plugin) => plugin.reloadData !== undefined);
  const pass = async () => {
    const before = new Set(updatedLists(plugins));
    for (const plugin of reloadable) {
      await plugin
        .reloadData?.()
        .catch((error: unknown) => options.log.error({ err: error, plugin: plugin.id }, 'data lists not reloaded; the loaded ones stay in use'));
    }
    const changed = updatedLists(plugins).filter((list) => !before.has(list));
    options.log.info({ changed, plugins: reloadable.map((plugin) => plugin.id) }, 'data lists reloaded');
  };
  const reload = () => {
    running ??= pass().finally(() => {
      running = null;
    });
    return running;
  };
  const timer = options.intervalSeconds > 0 ? setInterval(() => void reload(), options.intervalSeconds * 1000) : null;
  timer?.unref();
  return { reload, stop: () => timer && clearInterval(timer) };
}

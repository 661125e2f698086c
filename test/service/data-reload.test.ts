// The data reload's own rules, with plugins made for the test: one pass at a time (a signal during one joins
// it), a plugin that fails is logged and leaves the others to reload, and the log names the lists that changed.
import { describe, expect, it } from 'vitest';
import type { DataList, Plugin } from '../../src/engine/plugin.js';
import { startDataReload } from '../../src/service/data-reload.js';
import { captureLog } from '../support/log-capture.js';

const list = (fetchedAt?: string): DataList => ({
  name: 'list.txt',
  source: 'a test',
  license: 'CC0-1.0',
  date: '2026-12-01',
  entries: 1,
  ...(fetchedAt ? { installed: { urls: [], fetchedAt, sha256: 'x', entries: 1 } } : {}),
});

function plugin(id: string, reloadData?: (self: Plugin) => Promise<void>): Plugin {
  const self: Plugin = { id, description: id, steps: [], facts: {}, checks: {}, needs: [], data: [list()], run: async () => ({}) };
  if (reloadData) self.reloadData = () => reloadData(self);
  return self;
}

describe('startDataReload', () => {
  it('runs one pass at a time: a reload asked during one joins it', async () => {
    let passes = 0;
    let release = () => {};
    const slow = plugin('slow', async () => {
      passes += 1;
      await new Promise<void>((resolve) => {
        release = resolve;
      });
    });
    const captured = captureLog();
    const reload = startDataReload([slow], { intervalSeconds: 0, log: captured.log });
    const first = reload.reload();
    const second = reload.reload();
    expect(second).toBe(first);
    release();
    await first;
    expect(passes).toBe(1);
    const third = reload.reload();
    release();
    await third;
    expect(passes).toBe(2);
  });

  it('logs a plugin that fails, reloads the others, and names the lists that changed', async () => {
    const captured = captureLog();
    const failing = plugin('failing', async () => {
      throw new Error('disk gone');
    });
    const fresh = plugin('fresh', async (self) => {
      self.data = [list('2026-12-03T06:00:00.000Z')];
    });
    const reload = startDataReload([failing, fresh, plugin('static')], { intervalSeconds: 0, log: captured.log });
    await reload.reload();
    expect(captured.lines.find((l) => l.msg === 'data lists not reloaded; the loaded ones stay in use')).toMatchObject({
      plugin: 'failing',
      err: { message: 'disk gone' },
    });
    expect(captured.lines.find((l) => l.msg === 'data lists reloaded')).toMatchObject({
      changed: ['fresh/list.txt 2026-12-03T06:00:00.000Z'],
      plugins: ['failing', 'fresh'],
    });
    reload.stop();
  });
});

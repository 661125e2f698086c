// The listing of known-abuse and spam-trap from the project's labels (listed-domain.ts listedByLabels): off
// by default, on with the check's labelled_at_least, counting the labels it names in all (no window), the
// project's exemptions still winning.
import { afterAll, beforeAll, describe } from 'vitest';
import type { Plugin } from '../../src/engine/plugin.js';
import type { Store } from '../../src/store/database.js';
import type { LabelName } from '../../src/store/labels.js';
import { DAY_MS } from '../../src/store/labels.js';
import { openSqliteTestStore } from './databases.js';
import { labelFor, reputationOf } from './labels.js';
import { testPlugin } from './plugin-tester.js';

const NOW = Date.UTC(2026, 11, 3, 12);

export function labelledDomainSuite({
  plugin,
  check,
  flag,
  match,
  label,
}: {
  plugin: Plugin;
  check: string;
  flag: string;
  match: string;
  label: LabelName;
}): void {
  describe(`${check} from the project's ${label} labels`, () => {
    let store: Store;
    let project: string;
    beforeAll(async () => {
      store = await openSqliteTestStore();
      project = (await store.projects.create({ name: 'labelled', policy: 'default' })).id;
      // Three labels of labelled-shop.com, one of them a year old (a listing counts labels in all); one legitimate.
      for (const [email, ago] of [
        ['a@labelled-shop.com', 0],
        ['b@labelled-shop.com', 1],
        ['c@labelled-shop.com', 365],
      ] as const) {
        await store.labels.record(labelFor(project, email, NOW - ago * DAY_MS, { label }), NOW);
      }
      await store.labels.record(labelFor(project, 'd@labelled-shop.com', NOW, { label: 'legitimate' }), NOW);
    });
    afterAll(() => store?.close());

    testPlugin(
      plugin,
      [
        { name: 'off by default: labels list nothing', email: 'new@labelled-shop.com', facts: { [flag]: false, [match]: null }, fires: [] },
        {
          name: 'labelled_at_least 3: three labels in all list the domain',
          email: 'new@labelled-shop.com',
          options: { [check]: { labelled_at_least: 3 } },
          facts: { [flag]: true, [match]: 'labelled-shop.com' },
          fires: [check],
        },
        {
          name: 'labelled_at_least 4: three labels do not',
          email: 'new@labelled-shop.com',
          options: { [check]: { labelled_at_least: 4 } },
          facts: { [flag]: false, [match]: null },
          fires: [],
        },
        {
          name: 'a subdomain is its own subject: not listed by its parent’s labels',
          email: 'new@mail.labelled-shop.com',
          options: { [check]: { labelled_at_least: 1 } },
          facts: { [flag]: false },
          fires: [],
        },
        {
          name: 'the project’s exemption wins over its labels',
          email: 'new@labelled-shop.com',
          options: { [check]: { labelled_at_least: 1, exempt: ['labelled-shop.com'] } },
          facts: { [flag]: false, [match]: null },
          fires: [],
        },
      ],
      {
        reputation: reputationOf(
          () => store,
          () => [project],
        ),
        now: () => NOW,
      },
    );
  });
}

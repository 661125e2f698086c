// No false alarms on ordinary people (issue 11): under the default policy, names with apostrophes and
// hyphens, numeric mailboxes at providers numeric by design, and short everyday words are allowed.
import { describe, expect, it } from 'vitest';
import { registry } from '../../plugins/index.js';
import { FactCatalog } from '../../src/engine/catalog.js';
import { policiesDir } from '../../src/paths.js';
import { PolicyBook } from '../../src/policy/book.js';
import { evaluateFor } from '../support/plugin-tester.js';

const policy = PolicyBook.load(policiesDir, new FactCatalog(registry)).byName('default')!;

const ORDINARY: [string, string[]][] = [
  ["o'brien-smith@example.com", []],
  ["O'Brien@example.com", []],
  ["d'angelo.maria@example.com", []],
  ["jean-luc.o'neil@example.com", []],
  ['mary-kate.olsen@example.com', []],
  ['1234567890@qq.com', ['local_is_numeric']],
  ['2938475610@qq.com', ['local_is_numeric']],
  ['13812345678@163.com', ['local_is_numeric']],
  ['15923456789@126.com', ['local_is_numeric']],
  ['79161234567@mail.ru', ['local_is_numeric']],
  ['89161234567@yandex.ru', ['local_is_numeric']],
  ['power@example.com', []],
  ['party.time@example.com', []],
  ['street@example.com', []],
  ['hertz@example.com', []],
];

describe('default policy: ordinary addresses are allowed', () => {
  it.each(ORDINARY)('%s', async (email, warnings) => {
    const { decision } = await evaluateFor(policy, { email });
    expect({ action: decision.action, errors: decision.errors, warnings: decision.warnings }).toEqual({ action: 'allow', errors: [], warnings });
  });

  it('the same numeric name outside a numeric provider is still a fraud pattern', async () => {
    const { decision } = await evaluateFor(policy, { email: '1234567890@example.com' });
    expect(decision).toMatchObject({ action: 'challenge', warnings: expect.arrayContaining(['fraud_pattern_detected']) });
  });
});

// Replay tests (replay-tests/<policy>.yaml beside a policy): fixture events with their stored action, recorded
// facts and label, replayed by the policy, the confusion figures compared with what each test expects; the
// shipped ones pass, `policy test` runs them, and a wrong file is refused naming file, line and path.
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../../plugins/index.js';
import { FactCatalog } from '../../src/engine/catalog.js';
import { policiesDir } from '../../src/paths.js';
import { PolicyBook } from '../../src/policy/book.js';
import { PolicyError } from '../../src/policy/errors.js';
import { loadPolicy } from '../../src/policy/load.js';
import { REPLAY_TESTS_FOLDER, readReplayTests, replayTestsOf, runReplayTests } from '../../src/service/policy-replay-tests.js';
import { LABELS } from '../../src/store/labels.js';
import { runCli } from '../support/cli-run.js';

const catalog = new FactCatalog(registry);

const POLICY = `version: "1.0"
default_action: allow
checks:
  disposable_domain: { mode: hard, action: block }
  role_based_address: { mode: soft, action: challenge }
  ip_duplication: { mode: hard, action: block, options: { threshold: 3, window: total } }
`;

const SUITE = `events:
  throwaway: { email_address: a@mailinator.com, action: allow, label: fraud }
  third_on_ip: { email_address: c@example.org, ipv4_address: 203.0.113.9, action: challenge, label: abuse, facts: { distinct_emails_in_ip: 3 } }
  missed: { email_address: b@example.org, action: allow, label: chargeback }
  role: { email_address: info@example.org, action: allow, label: legitimate }
  customer: { email_address: jane@example.org, action: block, label: legitimate }
  nobody: { email_address: sam@example.org, action: allow }
tests:
  - name: everything
    expected:
      current: { bad_blocked: 0, bad_challenged: 1, bad_allowed: 2, good_blocked: 1, good_challenged: 0, good_allowed: 1, precision: 0.5, recall: 0.33 }
      candidate: { bad_blocked: 2, bad_challenged: 0, bad_allowed: 1, good_blocked: 0, good_challenged: 1, good_allowed: 1, precision: 0.6667, recall: 0.667 }
      labelled: 5
      unlabelled: 1
      changed: 4
  - name: a subset, and ratios with nothing to divide
    events: [customer, nobody]
    expected:
      candidate: { precision: null, recall: null, good_allowed: 1 }
      current: { precision: 0, recall: null, good_blocked: 1 }
`;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'email-trust-replay-tests-'));
  await mkdir(join(dir, REPLAY_TESTS_FOLDER));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** A policy file with its replay tests beside it; returns the policy file. */
async function withSuite(name: string, suite: string): Promise<string> {
  const file = join(dir, `${name}.yaml`);
  await writeFile(file, POLICY);
  await writeFile(join(dir, REPLAY_TESTS_FOLDER, `${name}.yaml`), suite);
  return file;
}

const compiled = (file: string) => loadPolicy({ name: 'p', file }, catalog);

describe('replay tests', () => {
  it('replay the fixture events with their labels and compare the figures (ratios to the decimals written)', async () => {
    const policy = compiled(await withSuite('good', SUITE));
    const suite = replayTestsOf(policy);
    expect(suite?.tests).toHaveLength(2);
    const results = await runReplayTests(policy, suite!);
    expect(results.map((r) => [r.test.name, r.failures])).toEqual([
      ['everything', []],
      ['a subset, and ratios with nothing to divide', []],
    ]);
  });

  it('fail saying which figure differed, then each labelled event with its stored and replayed action', async () => {
    const wrong = SUITE.replace('candidate: { bad_blocked: 2,', 'candidate: { bad_blocked: 3,').replace('labelled: 5', 'labelled: 4');
    const policy = compiled(await withSuite('wrong', wrong));
    const [first, second] = await runReplayTests(policy, replayTestsOf(policy)!);
    expect(first?.passed).toBe(false);
    expect(first?.failures).toEqual([
      'labelled: expected 4, got 5',
      'candidate.bad_blocked: expected 3, got 2',
      '  throwaway (fraud): stored allow, replayed block',
      '  third_on_ip (abuse): stored challenge, replayed block',
      '  missed (chargeback): stored allow, replayed allow',
      '  role (legitimate): stored allow, replayed challenge',
      '  customer (legitimate): stored block, replayed allow',
    ]);
    expect(second?.passed).toBe(true);
  });

  it('refuse an unknown event name, a fact that is not recorded, and what the schema refuses, with line and path', async () => {
    const bad = SUITE.replace('facts: { distinct_emails_in_ip: 3 }', 'facts: { distinct_emails_in_ipp: 3 }')
      .replace('events: [customer, nobody]', 'events: [custommer, nobody]')
      .replace('label: chargeback', 'label: charge_back');
    const file = await withSuite('bad', bad);
    const problems = (() => {
      try {
        readReplayTests(join(dir, REPLAY_TESTS_FOLDER, 'bad.yaml'), compiled(file));
      } catch (error) {
        if (error instanceof PolicyError) return error.problems;
      }
      return [];
    })();
    expect(problems.map((p) => [p.line, p.path])).toEqual([[4, '/events/missed/label']]);
    const schemaFixed = bad.replace('label: charge_back', 'label: chargeback');
    await writeFile(join(dir, REPLAY_TESTS_FOLDER, 'bad.yaml'), schemaFixed);
    let error: unknown;
    try {
      readReplayTests(join(dir, REPLAY_TESTS_FOLDER, 'bad.yaml'), compiled(file));
    } catch (e) {
      error = e;
    }
    expect((error as PolicyError).problems).toEqual([
      expect.objectContaining({
        line: 3,
        path: '/events/third_on_ip/facts/distinct_emails_in_ipp',
        message: expect.stringContaining(
          '"distinct_emails_in_ipp" is not a recorded fact (those are the network and history facts, of the I/O plugins); did you mean "distinct_emails_in_ip"?',
        ),
      }),
      expect.objectContaining({ line: 17, path: '/tests/1/events/0', message: '"custommer" is not one of the events; did you mean "customer"?' }),
    ]);
  });

  it('policy test runs them after the policy tests, and exits 4 when one fails', async () => {
    const good = await run('policy', 'test', join(dir, 'good.yaml'));
    expect(good.code).toBe(0);
    expect(good.out).toContain('PASS  good.yaml: replay: everything\n');
    expect(good.out).toMatch(/2 passed, 0 failed\n$/);
    const wrong = await run('policy', 'test', join(dir, 'wrong.yaml'));
    expect(wrong.code).toBe(4);
    expect(wrong.out).toContain('FAIL  wrong.yaml: replay: everything\n      labelled: expected 4, got 5\n');
    const bad = await run('policy', 'test', join(dir, 'bad.yaml'));
    expect(bad.code).toBe(3);
    expect(bad.err).toContain(`${join(dir, REPLAY_TESTS_FOLDER, 'bad.yaml')}:17:14: /tests/1/events/0: "custommer" is not one of the events`);
  });

  it('the shipped replay tests pass, each beside a shipped policy', async () => {
    const book = PolicyBook.load(policiesDir, catalog);
    const files = readdirSync(join(policiesDir, REPLAY_TESTS_FOLDER));
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const policy = book.byName(file.replace(/\.yaml$/, ''));
      expect(policy, file).toBeDefined();
      const results = await runReplayTests(policy!, replayTestsOf(policy!)!);
      expect(results.map((r) => [r.test.name, r.failures])).toEqual(results.map((r) => [r.test.name, []]));
    }
  });

  it("the schema's labels are the store's", () => {
    const schema = JSON.parse(readFileSync(fileURLToPath(new URL('../../schemas/policy-replay-test.schema.json', import.meta.url)), 'utf8'));
    expect(schema.definitions.event.properties.label.enum).toEqual([...LABELS]);
  });
});

const run = runCli;

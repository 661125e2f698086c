// `email-trust policy replay`: events stored through the real verify endpoint under a lenient policy,
// re-decided with a stricter candidate, on SQLite and PostgreSQL: the matrix, masked samples, what could not
// be replayed, --since, and the refusals (exit 2 bad arguments, exit 3 invalid policy); and soft_check
// calls, stored without their domain facts, replayed with those facts unknown; --labels, the events joined
// with their labels (the event's own, else its address's with its IP, else its address's) as confusion tables.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressSubject, eventSubject, type LabelName } from '../../src/store/labels.js';
import { runCli } from '../support/cli-run.js';
import { createPostgresSchema } from '../support/databases.js';
import { startDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { ensureBuilt } from '../support/serve-process.js';
import { apiKey, bearer, post, startService, type TestServer } from '../support/server.js';

const LENIENT = `version: "1.0"
default_action: allow
checks:
  structure: { mode: hard, action: block }
  ip_duplication: { mode: soft, action: challenge, options: { threshold: 3, window: total } }
`;

const STRICT = `version: "1.0"
default_action: allow
checks:
  structure: { mode: hard, action: block }
  disposable_domain: { mode: hard, action: block }
  role_based_address: { mode: soft, action: allow_with_review }
  ip_duplication: { mode: soft, action: challenge, options: { threshold: 2, window: total } }
  mx_record: { mode: soft, action: allow_with_verification }
`;

const root = fileURLToPath(new URL('../..', import.meta.url));

const run = runCli;

interface Cell {
  from: string;
  to: string;
  count: number;
  samples: string[];
}

let dir: string;
let strictFile: string;
let lenientFile: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'email-trust-replay-'));
  strictFile = join(dir, 'strict.yaml');
  await writeFile(strictFile, STRICT);
  lenientFile = join(dir, 'lenient.yaml');
  await writeFile(lenientFile, LENIENT);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe.each(['sqlite', 'postgres'] as const)('policy replay on %s', (database) => {
  let server: TestServer;
  let dropSchema: (() => Promise<void>) | null = null;
  const savedUrl = process.env.DATABASE_URL;

  beforeAll(async () => {
    let url = `sqlite:${join(dir, 'replay.sqlite')}`;
    if (database === 'postgres') {
      const schema = await createPostgresSchema();
      url = schema.url;
      dropSchema = schema.drop;
    }
    process.env.DATABASE_URL = url;
    server = await startService({ databaseUrl: url });
    const shop = await server.createProject({ name: 'shop', policyYaml: LENIENT });
    const verify = async (email_address: string, ipv4_address?: string) => {
      const res = await post(server.url, '/v1/public/verify', { email_address, ...(ipv4_address ? { ipv4_address } : {}) }, bearer(shop.keys.access_token));
      expect(res.status).toBe(200);
      return (res.body as { action: string }).action;
    };
    expect(await verify('jane@example.com')).toBe('allow');
    expect(await verify('info@example.com')).toBe('allow');
    expect(await verify('sales@example.com')).toBe('allow');
    expect(await verify('bob@mailinator.com')).toBe('allow');
    expect(await verify('not-an-address')).toBe('block');
    expect(await verify('a1@example.org', '203.0.113.9')).toBe('allow');
    expect(await verify('a2@example.org', '203.0.113.9')).toBe('allow');
    expect(await verify('a3@example.org', '203.0.113.9')).toBe('challenge');

    // A second project: one event stored before replay existed (no recorded facts), three days ago.
    const old = await server.createProject({ name: 'old', policyYaml: LENIENT });
    await server.service.store.events.record({
      projectId: old.project.id,
      endpoint: 'verify',
      email: 'kate@example.com',
      emailLower: 'kate@example.com',
      baseEmail: 'kate@example.com',
      ipv4: '198.51.100.4',
      action: 'allow',
      createdAt: Date.now() - 3 * 86_400_000,
    });
    const res = await post(server.url, '/v1/public/verify', { email_address: 'info@example.net' }, bearer(old.keys.access_token));
    expect(res.status).toBe(200);
  });

  afterAll(async () => {
    await server?.close();
    await dropSchema?.();
    if (savedUrl === undefined) delete process.env.DATABASE_URL;
    else process.env.DATABASE_URL = savedUrl;
  });

  it('prints the from → to matrix with masked samples, the totals, and the checks it could not replay (--json)', async () => {
    const r = await run('policy', 'replay', '--project', 'shop', '--policy', strictFile, '--json');
    expect(r.err).toMatch(/^using (sqlite|postgres)/); // every command that opens the database names it first, on stderr
    expect(r.code).toBe(0);
    const report = JSON.parse(r.out);
    expect(report.events).toBe(8);
    expect(report.changed).toBe(4);
    const cells = Object.fromEntries((report.matrix as Cell[]).map((c) => [`${c.from} -> ${c.to}`, c]));
    expect(Object.keys(cells).sort()).toEqual([
      'allow -> allow',
      'allow -> allow_with_review',
      'allow -> block',
      'allow -> challenge',
      'block -> block',
      'challenge -> challenge',
    ]);
    expect(cells['allow -> allow']).toEqual({ from: 'allow', to: 'allow', count: 2, samples: [] });
    expect(cells['allow -> allow_with_review']).toMatchObject({ count: 2, samples: ['i***@example.com', 's***@example.com'] });
    expect(cells['allow -> block']).toMatchObject({ count: 1, samples: ['b***@mailinator.com'] });
    // The IP's second address: the stored count (2 distinct at decision time) meets the candidate's threshold 2.
    expect(cells['allow -> challenge']).toMatchObject({ count: 1, samples: ['a***@example.org'] });
    expect(cells['block -> block']?.count).toBe(1);
    expect(cells['challenge -> challenge']?.count).toBe(1);
    expect(report.before).toEqual({ block: 1, challenge: 1, allow: 6 });
    expect(report.after).toEqual({ block: 2, challenge: 2, allow_with_review: 2, allow: 2 });
    // The lenient policy read no DNS fact, so none was recorded: the candidate's mx_record cannot be replayed.
    const notReplayed = report.not_replayed as Array<{ fact: string; plugin: string; events: number; checks: string[] }>;
    expect(notReplayed.length).toBeGreaterThan(0);
    for (const m of notReplayed) expect(m).toMatchObject({ plugin: 'dns', checks: ['mx_record'] });
    expect(new Set(notReplayed.map((m) => m.events))).toEqual(new Set([8]));
    expect(notReplayed.map((m) => m.fact)).not.toContain('distinct_emails_in_ip');
  });

  it('verify stored with each event the network and history facts its decision read, and only those', async () => {
    const facts = async (email: string) => {
      const row = await server.service.store.knex('events').first('recorded_facts').where({ email });
      return JSON.parse(row.recorded_facts);
    };
    expect(await facts('a2@example.org')).toEqual({ distinct_emails_in_ip: 2 });
    expect(await facts('jane@example.com')).toEqual({ distinct_emails_in_ip: null });
  });

  it('replaying the policy that decided changes nothing', async () => {
    const report = JSON.parse((await run('policy', 'replay', '--project', 'shop', '--policy', lenientFile, '--json')).out);
    expect(report).toMatchObject({ events: 8, changed: 0, not_replayed: [] });
    expect((report.matrix as Cell[]).every((c) => c.from === c.to && c.samples.length === 0)).toBe(true);
  });

  describe('--labels', () => {
    beforeAll(async () => {
      const { store } = server.service;
      const eventOf = async (email: string) => store.knex('events').first('id', 'project_id', 'base_email', 'ipv4').where({ email });
      const label = async (email: string, label: LabelName, by: 'event' | 'address' | 'address and ip', ip: string | null = null, projectId?: string) => {
        const e = await eventOf(email);
        const subject = by === 'event' ? eventSubject(Number(e.id)) : addressSubject(e.base_email, by === 'address' ? null : (ip ?? e.ipv4));
        await store.labels.record({
          projectId: projectId ?? e.project_id,
          subject,
          eventId: by === 'event' ? Number(e.id) : null,
          decisionId: null,
          email,
          baseEmail: e.base_email,
          domain: null,
          ipv4: by === 'address and ip' ? (ip ?? e.ipv4) : null,
          ipv6: null,
          device: null,
          label,
          note: null,
          source: 'api',
          labelledAt: Date.now(),
          shared: false,
        });
      };
      await label('bob@mailinator.com', 'fraud', 'event');
      await label('not-an-address', 'fraud', 'event');
      await label('a2@example.org', 'abuse', 'address and ip');
      await label('a3@example.org', 'chargeback', 'address');
      await label('jane@example.com', 'legitimate', 'event');
      await label('info@example.com', 'legitimate', 'address');
      // Another IP's label is not this event's; another project's label is not this project's.
      await label('a1@example.org', 'fraud', 'address and ip', '198.51.100.1');
      const old = await store.projects.getByName('old');
      await label('sales@example.com', 'fraud', 'address', null, old?.id);
    });

    it('adds the confusion tables of the stored and the candidate actions against the labels (--json)', async () => {
      const r = await run('policy', 'replay', '--project', 'shop', '--policy', strictFile, '--labels', '--json');
      expect(r.code).toBe(0);
      const report = JSON.parse(r.out);
      expect(report.events).toBe(8);
      expect(report.labels).toEqual({
        labelled: 6,
        unlabelled: 2,
        by_label: { fraud: 2, abuse: 1, chargeback: 1, legitimate: 2 },
        // As decided: a3 challenged, not-an-address blocked, bob and a2 let through.
        current: {
          bad: { blocked: 1, challenged: 1, allowed: 2 },
          good: { blocked: 0, challenged: 0, allowed: 2 },
          precision: 1,
          recall: 0.5,
          actions: { bad: { block: 1, challenge: 1, allow: 2 }, good: { allow: 2 } },
        },
        // The candidate blocks bob, challenges a2, and sends info (a customer) to review: a false positive.
        candidate: {
          bad: { blocked: 2, challenged: 2, allowed: 0 },
          good: { blocked: 0, challenged: 1, allowed: 1 },
          precision: 0.8,
          recall: 1,
          actions: { bad: { block: 2, challenge: 2 }, good: { allow_with_review: 1, allow: 1 } },
        },
      });
    });

    it('prints them as a table, and nothing of them without --labels', async () => {
      const r = await run('policy', 'replay', '--project', 'shop', '--policy', strictFile, '--labels');
      expect(r.code).toBe(0);
      expect(r.out).toContain('\nlabels: 6 of 8 replayed events labelled (fraud 2, abuse 1, chargeback 1, legitimate 2), 2 unlabelled\n');
      expect(r.out).toMatch(/\nlabelled\s+action\s+current\s+candidate\n/);
      expect(r.out).toMatch(/\nbad\s+blocked\s+1\s+2\n\s+challenged\s+1\s+2\n\s+allowed\s+2\s+0\n/);
      expect(r.out).toMatch(/\ngood\s+blocked \(false positive\)\s+0\s+0\n\s+challenged \(false positive\)\s+0\s+1\n\s+allowed\s+2\s+1\n/);
      expect(r.out).toMatch(/\nprecision\s+block or challenge\s+1\.000 \(2\/2\)\s+0\.800 \(4\/5\)\n/);
      expect(r.out).toMatch(/\nrecall\s+block or challenge\s+0\.500 \(2\/4\)\s+1\.000 \(4\/4\)\n/);
      expect(r.out).toContain('current: the action stored with each event, what was decided then;');
      const without = await run('policy', 'replay', '--project', 'shop', '--policy', strictFile);
      expect(without.out).not.toContain('labels:');
      expect(JSON.parse((await run('policy', 'replay', '--project', 'shop', '--policy', strictFile, '--json')).out)).not.toHaveProperty('labels');
    });

    it('says so when no replayed event has a label', async () => {
      const r = await run('policy', 'replay', '--project', 'old', '--policy', strictFile, '--labels', '--since', '2d');
      expect(r.code).toBe(0);
      expect(r.out).toContain('labels: none of the 1 replayed events has a label');
    });

    it('counts the labels POST /v1/feedback and feedback import give', async () => {
      const fed = await server.createProject({ name: 'fed', policyYaml: LENIENT });
      for (const [email_address, ipv4_address] of [
        ['ring@mailinator.com', '198.51.100.7'],
        ['kim@example.com', '198.51.100.8'],
        ['support@example.com', '198.51.100.9'],
      ]) {
        expect((await post(server.url, '/v1/public/verify', { email_address, ipv4_address }, bearer(fed.keys.access_token))).status).toBe(200);
      }
      const labelled = await post(server.url, '/v1/feedback', { email_address: 'ring@mailinator.com', label: 'fraud' }, apiKey(fed.keys.private_key));
      expect(labelled.status).toBe(201);
      const csv = join(dir, `labels-${database}.csv`);
      await writeFile(csv, 'email_address,label,date,ip\nkim@example.com,legitimate,2026-11-30,198.51.100.8\nsupport@example.com,legitimate,2026-11-30,\n');
      const imported = await run('feedback', 'import', csv, '--project', 'fed');
      expect(imported.code, imported.out + imported.err).toBe(0);
      const report = JSON.parse((await run('policy', 'replay', '--project', 'fed', '--policy', strictFile, '--labels', '--json')).out);
      expect(report.labels).toMatchObject({
        labelled: 3,
        unlabelled: 0,
        current: { bad: { allowed: 1 }, good: { allowed: 2 }, precision: null, recall: 0 },
        candidate: { bad: { blocked: 1 }, good: { challenged: 1, allowed: 1 }, precision: 0.5, recall: 1 },
      });
    });
  });

  // Once, on SQLite: the worker threads read the same store whatever its database, and a run costs a build.
  it.runIf(database === 'sqlite')('gives the same report from the built command with a worker thread', async () => {
    ensureBuilt();
    const args = ['policy', 'replay', '--project', 'shop', '--policy', strictFile, '--json'];
    const { stdout } = await promisify(execFile)(process.execPath, [join(root, 'bin/email-trust.js'), ...args, '--workers', '1'], {
      cwd: root,
      env: { ...process.env, LOG_LEVEL: 'warn' },
    });
    const inProcess = JSON.parse((await run(...args)).out);
    const workers = JSON.parse(stdout);
    expect(workers.events).toBe(8);
    expect({ matrix: workers.matrix, not_replayed: workers.not_replayed }).toEqual({ matrix: inProcess.matrix, not_replayed: inProcess.not_replayed });
  });

  it('prints the same as text, with the policy revision and the window', async () => {
    const r = await run('policy', 'replay', '--project', 'shop', '--policy', strictFile);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^policy replay: .*strict\.yaml \(revision [0-9a-f]+\) on project shop\n/);
    expect(r.out).toContain('(--since 7d)');
    expect(r.out).toMatch(/replayed 8 events in [\d.]+ s \([\d,]+\/s\); 4 would change action \(50%\)/);
    expect(r.out).toMatch(/\nallow\s+→\s+allow_with_review\s+2 {2}i\*\*\*@example\.com, s\*\*\*@example\.com\n/);
    expect(r.out).toMatch(/\nallow\s+→\s+block\s+1 {2}b\*\*\*@mailinator\.com\n/);
    expect(r.out).toMatch(/\nblock\s+1\s+2\n/);
    expect(r.out).toMatch(/could not replay .*\n {2}\S+ \(dns\): 8 of 8 events; checks: mx_record\n/);
    expect(r.out).not.toContain('jane@example.com');
  });

  it('--since keeps only the window: an older event is left out, and one stored without facts is named', async () => {
    const recent = JSON.parse((await run('policy', 'replay', '--project', 'old', '--policy', strictFile, '--since', '2d', '--json')).out);
    expect(recent.events).toBe(1);
    expect(recent.matrix).toEqual([{ from: 'allow', to: 'allow_with_review', count: 1, samples: ['i***@example.net'] }]);
    const week = JSON.parse((await run('policy', 'replay', '--project', 'old', '--policy', strictFile, '--since', '7d', '--json')).out);
    expect(week.events).toBe(2);
    expect(week.since_asked).toBe('7d');
    // The old event recorded no velocity count: its ip_duplication could not be replayed.
    expect(week.not_replayed).toContainEqual({ fact: 'distinct_emails_in_ip', plugin: 'velocity', events: 1, checks: ['ip_duplication'] });
    const capped = JSON.parse((await run('policy', 'replay', '--project', 'old', '--policy', strictFile, '--since', '90d', '--json')).out);
    expect(capped.bounded_by_retention).toBe(true);
    expect(capped.events).toBe(2);
  });

  it('refuses an unknown project, a bad --since or --workers with exit 2, an invalid policy with exit 3', async () => {
    const unknown = await run('policy', 'replay', '--project', 'nope', '--policy', strictFile);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain('no project named or with id "nope"');
    const since = await run('policy', 'replay', '--project', 'shop', '--policy', strictFile, '--since', 'a week');
    expect(since.code).toBe(2);
    expect(since.err).toContain('--since must be a number and a unit');
    const workers = await run('policy', 'replay', '--project', 'shop', '--policy', strictFile, '--workers', 'many');
    expect(workers.code).toBe(2);
    expect(workers.err).toContain('--workers must be an integer from 0 to 16, got "many"');
    const bad = join(dir, 'bad.yaml');
    await writeFile(bad, 'version: "1.0"\nchecks:\n  no_such_check: { mode: hard }\n');
    const invalid = await run('policy', 'replay', '--project', 'shop', '--policy', bad);
    expect(invalid.code).toBe(3);
    expect(invalid.err).toContain('unknown check "no_such_check"');
    const missing = await run('policy', 'replay', '--project', 'shop', '--policy', join(dir, 'missing.yaml'));
    expect(missing.code).toBe(3);
    expect(missing.err).toContain('cannot read the policy');
  });
});

describe('policy replay of soft_check calls', () => {
  const MX = `version: "1.0"
default_action: allow
checks:
  mx_record: { mode: hard, action: block }
  ip_duplication: { mode: soft, action: challenge, options: { threshold: 3, window: total } }
`;
  let dns: TestDnsServer;
  let server: TestServer;
  let mxFile: string;
  const savedUrl = process.env.DATABASE_URL;

  beforeAll(async () => {
    dns = await startDnsServer();
    mxFile = join(dir, 'mx.yaml');
    await writeFile(mxFile, MX);
    const url = `sqlite:${join(dir, 'soft-check.sqlite')}`;
    process.env.DATABASE_URL = url;
    server = await startService({
      databaseUrl: url,
      env: { NETWORK_CHECKS: 'on', DNS_SERVERS: dns.server, DNS_TIMEOUT_MS: '1000', DNS_TRIES: '1', NETWORK_BUDGET_MS: '2000', WEB_CHECKS: 'off' },
    });
    const mail = await server.createProject({ name: 'mail', policyYaml: MX });
    // Both decided on the live NXDOMAIN answer; only the first stores it with its event.
    for (const [email_address, soft_check] of [
      ['kept@nx.test', false],
      ['soft@nx.test', true],
    ] as const) {
      const res = await post(server.url, '/v1/public/verify', { email_address, ipv4_address: '203.0.113.50', soft_check }, bearer(mail.keys.access_token));
      expect(res.status).toBe(200);
      expect((res.body as { action: string }).action).toBe('block');
    }
  });

  afterAll(async () => {
    await server?.close();
    await dns?.close();
    if (savedUrl === undefined) delete process.env.DATABASE_URL;
    else process.env.DATABASE_URL = savedUrl;
  });

  it('takes the domain facts of a soft_check event as unknown, counts it and names the checks, and keeps its velocity', async () => {
    const r = await run('policy', 'replay', '--project', 'mail', '--policy', mxFile, '--json');
    expect(r.code).toBe(0);
    const report = JSON.parse(r.out);
    expect(report.events).toBe(2);
    // The stored NXDOMAIN still blocks; the soft_check event's MX answer is unknown, which never blocks.
    expect(report.matrix).toEqual([
      { from: 'block', to: 'block', count: 1, samples: [] },
      { from: 'block', to: 'allow', count: 1, samples: ['s***@nx.test'] },
    ]);
    expect(report.soft_check.events).toBe(1);
    expect(report.soft_check.facts.length).toBeGreaterThan(0);
    for (const fact of report.soft_check.facts) expect(fact).toMatchObject({ plugin: 'dns', events: 1, checks: ['mx_record'] });
    expect(report.soft_check.facts.map((f: { fact: string }) => f.fact)).toContain('mx_record_status');
    // Velocity is analytics: stored with the soft_check event too, so nothing is missing.
    expect(report.not_replayed).toEqual([]);
  });

  it('gives the same from the built command with a worker thread', async () => {
    const args = ['policy', 'replay', '--project', 'mail', '--policy', mxFile, '--json'];
    const { stdout } = await promisify(execFile)(process.execPath, [join(root, 'bin/email-trust.js'), ...args, '--workers', '1'], {
      cwd: root,
      env: { ...process.env, LOG_LEVEL: 'warn' },
    });
    const workers = JSON.parse(stdout);
    const inProcess = JSON.parse((await run(...args, '--workers', '0')).out);
    expect(workers.soft_check.events).toBe(1);
    expect({ matrix: workers.matrix, soft_check: workers.soft_check }).toEqual({ matrix: inProcess.matrix, soft_check: inProcess.soft_check });
  });

  it('says so in the text report', async () => {
    const r = await run('policy', 'replay', '--project', 'mail', '--policy', mxFile);
    expect(r.code).toBe(0);
    expect(r.out).toContain(
      '1 of 2 events were soft_check calls, stored without their domain facts, which the checks reading them took as unknown (as a failed lookup is):',
    );
    expect(r.out).toMatch(/\n {2}mx_record_status \(dns\): 1 of 2 events; checks: mx_record\n/);
    expect(r.out).toContain('every other network and history fact the candidate read was recorded with its events.');
  });
});

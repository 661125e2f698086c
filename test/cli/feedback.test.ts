// `email-trust feedback import|list` (issue 50, point 1) on a SQLite file and on PostgreSQL: historic
// outcomes loaded from CSV become labels of their addresses (from their IPs), counted on their dates under
// the domain and the network; bad lines are summarised with their line numbers and never stop the import;
// the same file again changes nothing; `list` shows API and imported labels alike, with their history.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedProject } from '../../src/cli/projects.js';
import { addressSubject, dayOf } from '../../src/store/labels.js';
import { runCli } from '../support/cli-run.js';
import { createPostgresSchema } from '../support/databases.js';
import { apiKey, bearer, post, startService, type TestServer } from '../support/server.js';

const CSV = [
  'email_address,label,date,ip,note',
  'Ring.One+a@fraud-ring.example,fraud,2026-11-20,203.0.113.5,chargeback 7',
  'ring.two@fraud-ring.example,FRAUD,2026-11-21T10:00:00Z,,',
  'bad@x.example,scam,2026-11-20,,',
  ',fraud,2026-11-20,,',
  'ok@good.example,legitimate,2026-13-40,,',
  'ok@good.example,legitimate,2026-11-30,2001:DB8:0::7,',
  'not-an-address,fraud,2026-11-20,,',
  'late@x.example,bounced,2999-01-01,,',
  'ip@x.example,bounced,2026-11-20,300.1.1.1,',
  'short@x.example,spam_trap,2026-11-20',
  'shorter@x.example,spam_trap',
].join('\n');

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'email-trust-feedback-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe.each(['sqlite', 'postgres'] as const)('feedback import and list on %s', (database) => {
  let server: TestServer;
  let shop: CreatedProject;
  let dropSchema: (() => Promise<void>) | null = null;
  const savedUrl = process.env.DATABASE_URL;
  let file: string;

  beforeAll(async () => {
    let url = `sqlite:${join(dir, `${database}.sqlite`)}`;
    if (database === 'postgres') {
      const schema = await createPostgresSchema();
      url = schema.url;
      dropSchema = schema.drop;
    }
    process.env.DATABASE_URL = url;
    server = await startService({ databaseUrl: url });
    shop = await server.createProject({ name: 'shop' });
    await server.createProject({ name: 'other' });
    file = join(dir, `${database}-labels.csv`);
    await writeFile(file, CSV);
  });
  afterAll(async () => {
    await server?.close();
    await dropSchema?.();
    if (savedUrl === undefined) delete process.env.DATABASE_URL;
    else process.env.DATABASE_URL = savedUrl;
  });

  it('loads the good lines and names every bad one with its line number', async () => {
    const r = await runCli('feedback', 'import', file, '--project', 'shop');
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain('11 records for project shop');
    expect(r.out).toContain('4 labels created, 0 replaced, 0 unchanged, 7 bad lines');
    expect(r.out).toContain('line 12: date "" is not a date');
    expect(r.out).toContain('line 4: label "scam" is not one of fraud, abuse');
    expect(r.out).toContain('line 5: no address');
    expect(r.out).toContain('line 6: date "2026-13-40" is not a date');
    expect(r.out).toContain('line 8: "not-an-address" is not an email address');
    expect(r.out).toContain('line 9: date 2999-01-01 is in the future');
    expect(r.out).toContain('line 10: ip "300.1.1.1" is not an IPv4 or IPv6 address');

    const { labels } = server.service.store;
    const one = await labels.get(shop.project.id, addressSubject('ring.one@fraud-ring.example', '203.0.113.5'));
    expect(one).toMatchObject({
      label: 'fraud',
      source: 'import',
      note: 'chargeback 7',
      domain: 'fraud-ring.example',
      eventId: null,
      labelledAt: Date.UTC(2026, 10, 20),
    });
    expect(await labels.get(shop.project.id, addressSubject('short@x.example', null))).toMatchObject({ label: 'spam_trap', ipv4: null, note: null });
    const good = await labels.get(shop.project.id, addressSubject('ok@good.example', '2001:db8::7'));
    expect(good).toMatchObject({ label: 'legitimate', ipv6: '2001:db8::7', ipv4: null });
    // Counted on their own dates: both fraud labels of the domain are in a window that reaches back to 2026-11-20.
    const now = Date.UTC(2026, 11, 3);
    const windowDays = now / 86_400_000 - dayOf(Date.UTC(2026, 10, 20)) + 1;
    const domain = await labels.counts({ kind: 'domain', subject: 'fraud-ring.example', projectIds: [shop.project.id], windowDays, now });
    expect(domain.fraud).toEqual({ window: 2, total: 2 });
    const recent = await labels.counts({ kind: 'domain', subject: 'fraud-ring.example', projectIds: [shop.project.id], windowDays: 7, now });
    expect(recent.fraud).toEqual({ window: 0, total: 2 });
    const network = await labels.counts({ kind: 'network', subject: '203.0.113.0/24', projectIds: [shop.project.id], windowDays, now });
    expect(network.fraud.total).toBe(1);
  });

  it('changes nothing when the same file is loaded again', async () => {
    const r = await runCli('feedback', 'import', file, '--project', 'shop');
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain('0 labels created, 0 replaced, 4 unchanged, 7 bad lines');
  });

  it('lists API and imported labels, filtered by address and label, with their history', async () => {
    const verify = await post(server.url, '/v1/public/verify', { email_address: 'ring.three@fraud-ring.example' }, bearer(shop.keys.access_token));
    const decisionId = verify.headers.get('x-decision-id') as string;
    for (const label of ['fraud', 'chargeback'])
      expect((await post(server.url, '/v1/feedback', { decision_id: decisionId, label }, apiKey(shop.keys.private_key))).status).toBeLessThan(300);

    const all = await runCli('feedback', 'list', '--project', 'shop', '--json', '--history');
    expect(all.code, all.err).toBe(0);
    const listed = JSON.parse(all.out);
    // Newest change first: the API label, then the imported ones (written within the same milliseconds).
    expect(listed.map((l: { email: string }) => l.email).sort()).toEqual(
      ['Ring.One+a@fraud-ring.example', 'ok@good.example', 'ring.three@fraud-ring.example', 'ring.two@fraud-ring.example', 'short@x.example'].sort(),
    );
    expect(listed[0]).toMatchObject({ label: 'chargeback', decision_id: decisionId, source: 'api', revision: 2 });
    expect(listed[0].history.map((h: { label: string }) => h.label)).toEqual(['fraud', 'chargeback']);

    const byAddress = await runCli('feedback', 'list', '--project', 'shop', '--json', '--email', 'ring.one@fraud-ring.example');
    expect(JSON.parse(byAddress.out)).toMatchObject([{ email: 'Ring.One+a@fraud-ring.example', ipv4: '203.0.113.5', label: 'fraud' }]);
    const byLabel = await runCli('feedback', 'list', '--project', 'shop', '--json', '--label', 'legitimate');
    expect(JSON.parse(byLabel.out).map((l: { email: string }) => l.email)).toEqual(['ok@good.example']);

    const text = await runCli('feedback', 'list', '--project', 'shop', '--history', '--limit', '1');
    expect(text.out).toMatch(/chargeback {2}ring\.three@fraud-ring\.example {2}event \d+ {2}labelled \d{4}-\d\d-\d\d {2}api r2/);
    expect(text.out).toMatch(/r1 {2}\S+ {2}fraud {2}api/);

    const other = await runCli('feedback', 'list', '--project', 'other');
    expect(other.out).toContain('no labels of project other match');
  });

  it.each([
    [['feedback', 'list', '--project', 'shop', '--limit', '0'], '--limit must be a whole number from 1 to 1000'],
    [['feedback', 'list', '--project', 'shop', '--label', 'scam'], '--label must be one of fraud'],
    [['feedback', 'list', '--project', 'nope'], 'no project named or with id "nope"'],
    [['feedback', 'import', 'labels.txt', '--project', 'shop'], 'feedback is imported from a .csv file'],
  ])('refuses %j naming the problem (exit 2)', async (args, message) => {
    const r = await runCli(...args);
    expect(r.code).toBe(2);
    expect(r.err).toContain(message);
  });

  it('takes the later of two lines of one address, as written in the file, with the earlier kept in its history', async () => {
    const lines = ['email_address,label,date'];
    for (let i = 0; i < 40; i++)
      lines.push(`filler${i}@order.example,bounced,2026-11-20`, `twice@order.example,${i % 2 === 0 ? 'fraud' : 'legitimate'},2026-11-20`);
    const ordered = join(dir, `${database}-order.csv`);
    await writeFile(ordered, lines.join('\n'));
    const r = await runCli('feedback', 'import', ordered, '--project', 'shop');
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain('41 labels created, 39 replaced, 0 unchanged, 0 bad lines');
    const subject = addressSubject('twice@order.example', null);
    expect(await server.service.store.labels.get(shop.project.id, subject)).toMatchObject({ label: 'legitimate', revision: 40 });
    const history = await server.service.store.labels.history(shop.project.id, subject);
    expect(history.map((h) => h.label)).toEqual(Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? 'fraud' : 'legitimate')));
  });

  it('refuses a file whose header lacks a column, naming the header it needs', async () => {
    const headerless = join(dir, `${database}-header.csv`);
    await writeFile(headerless, 'email_address,outcome\nx@y.example,fraud\n');
    const r = await runCli('feedback', 'import', headerless, '--project', 'shop');
    expect(r.code).toBe(2);
    expect(r.err).toContain('no column "label" in the header (columns: email_address, outcome); the header is email_address,label,date[,ip][,note]');
  });
});

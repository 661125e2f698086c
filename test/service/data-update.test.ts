// `data update`'s service against local servers that publish each upstream's real format: a good file is
// installed with its metadata; a truncated one, an HTML error page, a 404, a server that never answers, a file
// over the size cap and a list that shrank by 90 % are refused, and the last good list stays as it was.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { registry } from '../../plugins/index.js';
import { updateTargets } from '../../src/cli/commands/data.js';
import { readInstalled, sha256Hex } from '../../src/data-lists.js';
import { sourceUrl, type UpdateOptions, updateLists } from '../../src/service/data-update.js';
import {
  type Answer,
  appleRelayCsv,
  awsIpRanges,
  fastlyPublicIpList,
  GITHUB_ACTIONS_ONLY,
  githubMeta,
  linodeGeofeed,
  mailcheckerList,
  NEW_TOR_EXIT,
  ROUTES,
  realUpstreams,
  startUpstreams,
  tompecIndex,
  torBulkExitList,
  type UpstreamServer,
  VULTR_SPECIAL,
  vultrGeofeedJson,
} from '../support/upstream-server.js';

let upstreams: UpstreamServer;
let dir: string;
let options: UpdateOptions;
const NOW = Date.parse('2026-12-03T06:00:00Z');

beforeAll(async () => {
  upstreams = await startUpstreams();
});
afterAll(() => upstreams.close());
beforeEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = await mkdtemp(join(tmpdir(), 'email-trust-data-update-'));
  upstreams.routes.clear();
  for (const [path, answer] of realUpstreams()) upstreams.routes.set(path, answer);
  options = { dir, sourcesUrl: upstreams.url, fetchTimeoutMs: 5000, maxBytes: 50 * 1024 * 1024, maxShrinkPercent: 20, dryRun: false, now: () => NOW };
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const update = (names: string[], overrides: Partial<UpdateOptions> = {}) => updateLists(updateTargets(registry, names), { ...options, ...overrides });
const installedText = (plugin: string, file: string) => readFileSync(join(dir, plugin, file), 'utf8');
const lines = (text: string) => text.trimEnd().split('\n');
const shippedText = (file: string) => readFileSync(join(import.meta.dirname, '../../plugins/ip-intelligence/data', file), 'utf8');

describe('a good file of each upstream', () => {
  it('is installed in DATA_DIR with its source, fetch time, checksum and entry count', async () => {
    const results = await update([]);
    const withUpstream = results.filter((r) => r.outcome !== 'skipped');
    expect(withUpstream.map((r) => `${r.plugin}/${r.list}:${r.outcome}:${r.reason}`).sort()).toEqual(
      [
        'disposable/domains.txt',
        'ip-intelligence/providers/apple_private_relay.txt',
        'ip-intelligence/providers/applebot.txt',
        'ip-intelligence/providers/aws.txt',
        'ip-intelligence/providers/bingbot.txt',
        'ip-intelligence/providers/cloudflare.txt',
        'ip-intelligence/providers/digitalocean.txt',
        'ip-intelligence/providers/fastly.txt',
        'ip-intelligence/providers/github.txt',
        'ip-intelligence/providers/google_cloud.txt',
        'ip-intelligence/providers/googlebot.txt',
        'ip-intelligence/providers/linode.txt',
        'ip-intelligence/providers/mistral.txt',
        'ip-intelligence/providers/openai.txt',
        'ip-intelligence/providers/oracle_cloud.txt',
        'ip-intelligence/providers/perplexity.txt',
        'ip-intelligence/providers/vultr.txt',
        'ip-intelligence/tor-exits.txt',
      ].map((id) => `${id}:installed:null`),
    );
    for (const result of withUpstream) {
      const installed = readInstalled(dir, result.plugin, result.list);
      expect(installed?.meta, result.list).toEqual({
        urls: result.urls,
        fetchedAt: '2026-12-03T06:00:00.000Z',
        sha256: sha256Hex(installedText(result.plugin, result.list)),
        entries: result.entries,
      });
      expect(lines(installed?.text ?? '').length).toBe(result.entries);
      expect(result.urls.every((url) => url.startsWith(`${upstreams.url}/`))).toBe(true);
    }
    // The same ranges as shipped, through every format: the same entries.
    const counts = withUpstream
      .filter((r) => r.plugin === 'ip-intelligence' && r.list !== 'tor-exits.txt')
      .map((r) => `${r.list} ${r.previous} -> ${r.entries}`);
    expect(counts.sort()).toEqual([
      'providers/apple_private_relay.txt 13745 -> 13745',
      'providers/applebot.txt 21 -> 21',
      'providers/aws.txt 3859 -> 3859',
      'providers/bingbot.txt 28 -> 28',
      'providers/cloudflare.txt 22 -> 22',
      'providers/digitalocean.txt 234 -> 234',
      'providers/fastly.txt 26 -> 26',
      'providers/github.txt 246 -> 246',
      'providers/google_cloud.txt 469 -> 469',
      'providers/googlebot.txt 65 -> 65',
      'providers/linode.txt 279 -> 279',
      'providers/mistral.txt 4 -> 4',
      'providers/openai.txt 233 -> 233',
      'providers/oracle_cloud.txt 793 -> 793',
      'providers/perplexity.txt 12 -> 12',
      'providers/vultr.txt 144 -> 144',
    ]);
    for (const file of ['aws', 'github', 'openai', 'perplexity', 'googlebot', 'linode']) {
      expect(installedText('ip-intelligence', `providers/${file}.txt`), file).toBe(shippedText(`providers/${file}.txt`));
    }
  });

  it('says why every other list is skipped: curated, a package, or no maintained upstream', async () => {
    const skipped = (await update([])).filter((r) => r.outcome === 'skipped');
    expect(skipped.length).toBeGreaterThan(20);
    expect(skipped.every((r) => (r.reason ?? '').length > 10 && r.urls.length === 0)).toBe(true);
    expect(skipped.find((r) => r.list === 'never-disposable.txt')?.reason).toBe('curated by hand for this project');
    expect(skipped.find((r) => r.list === 'providers/hetzner.txt')?.reason).toMatch(/^derived from routing data/);
    expect(skipped.find((r) => r.list === 'timezone-countries')?.reason).toMatch(/^no maintained upstream in SOURCE\.md \(source: IANA tz database/);
    expect(upstreams.asked).not.toContain('/');
  });

  it("replaces the Tor list's IPv4 exits and keeps its IPv6 ones (the bulk list publishes none)", async () => {
    const [tor] = await update(['tor-exits.txt']);
    const installed = lines(installedText('ip-intelligence', 'tor-exits.txt'));
    expect(installed).toContain(NEW_TOR_EXIT);
    expect(installed.filter((l) => l.includes(':')).length).toBe(914);
    expect(tor?.entries).toBe(2278);
  });

  it("applies the build's guard to the disposable list: never-disposable, universities, free providers, public suffixes", async () => {
    upstreams.routes.set(ROUTES.reviewed, {
      body: ['# reviewed', 'throwaway-fresh-7781.com', 'gmail.com', 'mit.edu', 'baldmama.de', 'co.uk', 'mailinator.com'].join('\n'),
    });
    upstreams.routes.set(ROUTES.mailchecker, { body: `${mailcheckerList()}only-on-mailchecker-5512.com\n` });
    const [result] = await update(['disposable/domains.txt']);
    expect(result?.outcome).toBe('installed');
    const installed = new Set(lines(installedText('disposable', 'domains.txt')));
    expect(installed.has('throwaway-fresh-7781.com')).toBe(true);
    expect(installed.has('mailinator.com')).toBe(true);
    for (const refused of ['gmail.com', 'mit.edu', 'baldmama.de', 'co.uk']) expect(installed.has(refused), refused).toBe(false);
    // Only one family names it: the rule needs two.
    expect(installed.has('only-on-mailchecker-5512.com')).toBe(false);
    expect(installed.size).toBe(result?.entries);
  });

  it("counts tompec's list as the ivolo family's vote: with mailchecker it adds, alone it keeps only what the build counted", async () => {
    const shipped = lines(readFileSync(new URL('../../plugins/disposable/data/domains.txt', import.meta.url), 'utf8'));
    // A fresh tompec entry the build counted alone (rule 3): on neither the reviewed list nor mailchecker.
    const freshAlone = 'zumaroll.com';
    expect(shipped).toContain(freshAlone);
    // The mirror's mailchecker serves the shipped list: less the fresh entry, which mailchecker does not have.
    const mailchecker = mailcheckerList()
      .split('\n')
      .filter((d) => d !== freshAlone)
      .join('\n');
    upstreams.routes.set(ROUTES.mailchecker, { body: `${mailchecker}on-both-families-4471.com\nonly-on-mailchecker-5512.com\n` });
    const tompec = [...(JSON.parse(tompecIndex()) as string[]), 'on-both-families-4471.com', 'only-on-tompec-6623.com', 'instágram.com'];
    upstreams.routes.set(ROUTES.tompec, { type: 'application/json', body: JSON.stringify(tompec, null, 2) });
    const [result] = await update(['disposable/domains.txt']);
    expect(result?.outcome).toBe('installed');
    const installed = new Set(lines(installedText('disposable', 'domains.txt')));
    expect(installed.has('on-both-families-4471.com')).toBe(true);
    expect(installed.has('only-on-mailchecker-5512.com')).toBe(false);
    // New to tompec since the build: the update cannot tell it is fresh without the two frozen lists.
    expect(installed.has('only-on-tompec-6623.com')).toBe(false);
    expect(installed.has(freshAlone)).toBe(true);
    expect([...installed].some((d) => d.includes('instágram'))).toBe(false);

    // tompec drops the fresh entry: the next update drops it too (mailchecker never had it).
    upstreams.routes.set(ROUTES.tompec, { type: 'application/json', body: JSON.stringify(tompec.filter((d) => d !== freshAlone)) });
    const [again] = await update(['disposable/domains.txt'], { now: () => NOW + 3_600_000 });
    expect(again?.outcome).toBe('installed');
    expect(new Set(lines(installedText('disposable', 'domains.txt'))).has(freshAlone)).toBe(false);
  });

  it('writes nothing on a dry run, and says it would hold', async () => {
    const [result] = await update(['tor-exits.txt'], { dryRun: true });
    expect(result).toMatchObject({ outcome: 'checked', reason: null, entries: 2278 });
    expect(existsSync(join(dir, 'ip-intelligence'))).toBe(false);
  });
});

describe('an update is cleaned as the import cleaned the shipped lists', () => {
  it("collapses an upstream's small pieces: Apple's relay CSV, in halves of the shipped CIDRs, installs the shipped list", async () => {
    expect(lines(appleRelayCsv()).length).toBeGreaterThan(20_000);
    const [relay] = await update(['providers/apple_private_relay.txt']);
    expect(relay).toMatchObject({ outcome: 'installed', previous: 13745, entries: 13745 });
    expect(installedText('ip-intelligence', 'providers/apple_private_relay.txt')).toBe(shippedText('providers/apple_private_relay.txt'));
  });

  it("leaves out the documentation, reserved and 6to4 blocks Vultr's geofeed lists as its own", async () => {
    const [vultr] = await update(['providers/vultr.txt']);
    expect(vultr).toMatchObject({ outcome: 'installed', previous: 144, entries: 144 });
    const installed = lines(installedText('ip-intelligence', 'providers/vultr.txt'));
    for (const block of VULTR_SPECIAL) expect(installed, block).not.toContain(block);
    expect(installed).toEqual(lines(shippedText('providers/vultr.txt')));
  });

  it("takes GitHub's meta arrays but `actions` (Azure's runners), and none of its keys that hold no ranges", async () => {
    upstreams.routes.set(ROUTES.github, { type: 'application/json', body: githubMeta(undefined, { copilot: ['4.144.10.0/28'] }) });
    const [github] = await update(['providers/github.txt']);
    expect(github).toMatchObject({ outcome: 'installed', previous: 246, entries: 247 });
    const installed = lines(installedText('ip-intelligence', 'providers/github.txt'));
    expect(installed).toContain('4.144.10.0/28');
    expect(installed).not.toContain(GITHUB_ACTIONS_ONLY);
    expect(installed.some((l) => l.startsWith('2603:1030:'))).toBe(false);
  });

  it("Fastly's public-ip-list alone (without the ARIN networks the shipped list adds) installs, within DATA_MAX_SHRINK", async () => {
    const arinOnly = ['8.18.217.0/24', '23.154.64.0/24', '64.125.197.168/29', '162.219.224.0/22', '140.248.0.0/16', '2606:2cc0::/46', '2620:11a:c000::/40'];
    const shippedFastly = lines(shippedText('providers/fastly.txt')).filter((l) => !arinOnly.includes(l));
    const v4 = [...shippedFastly.filter((l) => !l.includes(':')), '140.248.64.0/18', '140.248.128.0/17'];
    upstreams.routes.set(ROUTES.fastly, { type: 'application/json', body: fastlyPublicIpList({ v4, v6: shippedFastly.filter((l) => l.includes(':')) }) });
    const [fastly] = await update(['providers/fastly.txt']);
    expect(fastly).toMatchObject({ outcome: 'installed', reason: null, previous: 26, entries: 21 });
    expect(lines(installedText('ip-intelligence', 'providers/fastly.txt'))).not.toContain('8.18.217.0/24');
  });
});

describe('a bad download is refused and the last good list stays', () => {
  /** Installs the good list, swaps the route's answer, updates again: the result, and whether the installed file is untouched. */
  async function refusedAfterGood(names: string[], route: string, answer: Answer, overrides: Partial<UpdateOptions> = {}) {
    const [good] = await update(names);
    expect(good?.outcome).toBe('installed');
    const [plugin, file] = [good?.plugin as string, good?.list as string];
    const before = readFileSync(join(dir, plugin, file));
    const meta = readFileSync(join(dir, plugin, `${file}.meta.json`));
    upstreams.routes.set(route, answer);
    const [result] = await update(names, { now: () => NOW + 3_600_000, ...overrides });
    const kept = readFileSync(join(dir, plugin, file)).equals(before) && readFileSync(join(dir, plugin, `${file}.meta.json`)).equals(meta);
    return { result, kept };
  }

  it.each([
    [
      'truncated JSON (AWS)',
      ['providers/aws.txt'],
      ROUTES.aws,
      { type: 'application/json', body: awsIpRanges().slice(0, 5000) },
      /^does not parse: .*ip-ranges\.json: not JSON/,
    ],
    [
      'a truncated line (Tor)',
      ['tor-exits.txt'],
      ROUTES.tor,
      { body: `${torBulkExitList().slice(0, 2000).trimEnd()}\n185.220.1` },
      /^does not parse: .*torbulkexitlist/,
    ],
    [
      'a truncated domain (mailchecker)',
      ['disposable/domains.txt'],
      ROUTES.mailchecker,
      { body: `${mailcheckerList()}tempmai` },
      /line \d+: "tempmai" is not a domain/,
    ],
    [
      "truncated JSON (tompec's index.json)",
      ['disposable/domains.txt'],
      ROUTES.tompec,
      { type: 'application/json', body: tompecIndex().slice(0, 5000) },
      /index\.json: not JSON/,
    ],
    [
      'a JSON object instead of the array (tompec)',
      ['disposable/domains.txt'],
      ROUTES.tompec,
      { type: 'application/json', body: '{"domains":["mailinator.com"]}' },
      /index\.json: a JSON array of domains expected$/,
    ],
    [
      'an HTML error page',
      ['providers/aws.txt'],
      ROUTES.aws,
      { type: 'text/html; charset=utf-8', body: '<!DOCTYPE html><title>Error</title>' },
      /an HTML page \(text\/html; charset=utf-8\), not the list$/,
    ],
    [
      'an HTML page sent as text/plain',
      ['tor-exits.txt'],
      ROUTES.tor,
      { body: '\n<html><body>captive portal</body></html>' },
      /an HTML or XML page, not the list$/,
    ],
    ['a 404', ['providers/google_cloud.txt'], ROUTES.google, { status: 404, body: 'not found' }, /cloud\.json: HTTP 404$/],
    ['a 503 on one of two files (Cloudflare IPv6)', ['providers/cloudflare.txt'], ROUTES.cloudflareV6, { status: 503, body: 'busy' }, /ips-v6: HTTP 503$/],
    [
      'a wrong shape (Oracle without regions)',
      ['providers/oracle_cloud.txt'],
      ROUTES.oracle,
      { type: 'application/json', body: '{"last_updated_timestamp":"x"}' },
      /public_ip_ranges\.json: no regions array$/,
    ],
    [
      'a CSV that is no geofeed (DigitalOcean)',
      ['providers/digitalocean.txt'],
      ROUTES.digitalocean,
      { body: '# geofeed\n5.101.96.0/21,NL,NL-NH,Amsterdam,1098\nnot-a-prefix,US,,,\n' },
      /google\.csv:3: "not-a-prefix" is not an IP address or CIDR$/,
    ],
    [
      'a geofeed row cut inside its prefix (Apple relay)',
      ['providers/apple_private_relay.txt'],
      ROUTES.appleRelay,
      {
        type: 'text/csv',
        body: `${appleRelayCsv()
          .slice(0, 100_000)
          .replace(/\n[^\n]*$/, '')}\n172.224.226.0/2`,
      },
      /egress-ip-ranges\.csv:\d+: "172\.224\.226\.0\/2" is not a geofeed line/,
    ],
    [
      'a geofeed row whose prefix is no prefix (Linode)',
      ['providers/linode.txt'],
      ROUTES.linode,
      { body: `${linodeGeofeed()}2600:3c0g::/32,US,US-NJ,Cedar Knolls,\n` },
      /geoip\.linode\.com\/:\d+: "2600:3c0g::\/32" is not an IP address or CIDR$/,
    ],
    [
      'a prefix that is no CIDR (googlebot.json)',
      ['providers/googlebot.txt'],
      ROUTES.googlebot,
      {
        type: 'application/json',
        body: '{"creationTime":"2026-12-02T15:46:04.000000","prefixes":[{"ipv4Prefix":"66.249.64.0/27"},{"ipv6Prefix":"2001:4860:4801:10::"}]}',
      },
      /googlebot\.json: prefixes\[1\]\.ipv6Prefix is not a CIDR$/,
    ],
    [
      'one of three files missing (OpenAI chatgpt-user.json)',
      ['providers/openai.txt'],
      ROUTES.chatgptUser,
      { status: 404, body: 'not found' },
      /chatgpt-user\.json: HTTP 404$/,
    ],
    [
      "a bot check's challenge page (Perplexity)",
      ['providers/perplexity.txt'],
      ROUTES.perplexityUser,
      { status: 403, type: 'text/html; charset=UTF-8', body: '<!DOCTYPE html><title>Just a moment...</title>' },
      /perplexity-user\.json: HTTP 403$/,
    ],
    [
      'a wrong shape (Fastly without ipv6_addresses)',
      ['providers/fastly.txt'],
      ROUTES.fastly,
      { type: 'application/json', body: '{"addresses":["23.235.32.0/20"]}' },
      /public-ip-list: no ipv6_addresses array$/,
    ],
    [
      'truncated JSON (Vultr)',
      ['providers/vultr.txt'],
      ROUTES.vultr,
      { type: 'application/json', body: vultrGeofeedJson().slice(0, 3000) },
      /\?json: not JSON/,
    ],
    [
      "GitHub's rate-limit answer, without its arrays",
      ['providers/github.txt'],
      ROUTES.github,
      {
        type: 'application/json',
        body: '{"message":"API rate limit exceeded for 192.0.2.1.","documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api"}',
      },
      /api\.github\.com\/meta: no web array$/,
    ],
    [
      'a meta array holding something else than CIDRs (GitHub)',
      ['providers/github.txt'],
      ROUTES.github,
      { type: 'application/json', body: githubMeta(undefined, { hooks: ['ssh-ed25519 AAAAC3NzaC1lZDI1NTE5'] }) },
      /api\.github\.com\/meta: hooks\[\d+\] is not a CIDR$/,
    ],
  ] as const)('%s', async (_name, names, route, answer, reason) => {
    const { result, kept } = await refusedAfterGood([...names], route, answer);
    expect(result?.outcome).toBe('refused');
    expect(result?.reason).toMatch(reason);
    expect(kept).toBe(true);
  });

  it('a connection closed unanswered (a kept-alive one the server closed) is asked again, once: installed', async () => {
    upstreams.routes.set(ROUTES.tor, { body: torBulkExitList(), resets: 1 });
    const [result] = await update(['tor-exits.txt'], { now: () => NOW + 7_200_000 });
    expect(result).toMatchObject({ outcome: 'installed' });
    expect(upstreams.routes.get(ROUTES.tor)).toMatchObject({ resets: 0 });
  });

  it('closed unanswered twice: refused, naming the reset', async () => {
    const { result, kept } = await refusedAfterGood(['tor-exits.txt'], ROUTES.tor, { body: torBulkExitList(), resets: 2 });
    expect(result?.outcome).toBe('refused');
    expect(result?.reason).toMatch(/torbulkexitlist: the connection was closed without an answer \((ECONNRESET|UND_ERR_SOCKET)\), also when asked again$/);
    expect(kept).toBe(true);
  });

  it('a server that never answers, past DATA_FETCH_TIMEOUT_MS', async () => {
    const { result, kept } = await refusedAfterGood(['tor-exits.txt'], ROUTES.tor, 'hang', { fetchTimeoutMs: 300 });
    expect(result).toMatchObject({ outcome: 'refused', reason: `${upstreams.url}${ROUTES.tor}: no answer within 300 ms (DATA_FETCH_TIMEOUT_MS)` });
    expect(kept).toBe(true);
  });

  it('a file over DATA_MAX_BYTES, counted as it streams', async () => {
    const { result, kept } = await refusedAfterGood(
      ['providers/aws.txt'],
      ROUTES.aws,
      { type: 'application/json', body: awsIpRanges() },
      { maxBytes: 100_000 },
    );
    expect(result?.reason).toMatch(/ip-ranges\.json: .*over DATA_MAX_BYTES \(100000/);
    expect(kept).toBe(true);
  });

  it('a list that shrank by 90 %, past DATA_MAX_SHRINK', async () => {
    const aws = lines(readFileSync(join(import.meta.dirname, '../../plugins/ip-intelligence/data/providers/aws.txt'), 'utf8'));
    const tenth = aws.slice(0, Math.floor(aws.length / 10));
    const { result, kept } = await refusedAfterGood(['providers/aws.txt'], ROUTES.aws, {
      type: 'application/json',
      body: awsIpRanges({ v4: tenth.filter((l) => !l.includes(':')), v6: tenth.filter((l) => l.includes(':')) }),
    });
    expect(result).toMatchObject({ outcome: 'refused', previous: 3859, entries: 385 });
    expect(result?.reason).toBe('shrinks from 3859 to 385 entries (-90 %, more than DATA_MAX_SHRINK 20 %)');
    expect(kept).toBe(true);
    // A larger share allowed: the same file installs.
    const [allowed] = await update(['providers/aws.txt'], { maxShrinkPercent: 95 });
    expect(allowed?.outcome).toBe('installed');
  });

  it('an installed list whose checksum does not match is not loaded (the shipped one is)', async () => {
    await update(['tor-exits.txt']);
    expect(readInstalled(dir, 'ip-intelligence', 'tor-exits.txt')).not.toBeNull();
    writeFileSync(join(dir, 'ip-intelligence', 'tor-exits.txt'), '192.0.2.1\n');
    expect(readInstalled(dir, 'ip-intelligence', 'tor-exits.txt')).toBeNull();
  });
});

describe('DATA_SOURCES_URL', () => {
  it('fetches <mirror>/<host><path> instead of the upstream', () => {
    expect(sourceUrl('https://check.torproject.org/torbulkexitlist', null)).toBe('https://check.torproject.org/torbulkexitlist');
    expect(sourceUrl('https://check.torproject.org/torbulkexitlist', 'http://mirror.internal/lists/')).toBe(
      'http://mirror.internal/lists/check.torproject.org/torbulkexitlist',
    );
  });
});

describe("DATA_DIR's update lock: one update installs at a time", () => {
  const lock = () => join(dir, '.update.lock');
  const holder = (startedAt: number) =>
    writeFileSync(lock(), `${JSON.stringify({ pid: 4242, host: 'other-instance', startedAt: new Date(startedAt).toISOString() })}\n`);

  it('another update holding it: nothing is fetched or installed, and the error names the holder', async () => {
    holder(NOW - 5 * 60_000);
    upstreams.asked.length = 0;
    await expect(update(['tor-exits.txt'])).rejects.toThrow(
      /another `data update` is installing into .* \(pid 4242 on other-instance, since 2026-12-03T05:55:00\.000Z\); nothing was fetched/,
    );
    expect(upstreams.asked).toEqual([]);
    expect(existsSync(join(dir, 'ip-intelligence', 'tor-exits.txt'))).toBe(false);
    expect(existsSync(lock())).toBe(true);
  });

  it('a lock older than an hour (its update died) is taken over, and released when the update ends', async () => {
    holder(NOW - 61 * 60_000);
    const [result] = await update(['tor-exits.txt']);
    expect(result?.outcome).toBe('installed');
    expect(existsSync(lock())).toBe(false);
  });

  it('is released after an update whose lists were refused, and a dry run ignores it', async () => {
    upstreams.routes.set(ROUTES.tor, { status: 404, body: 'gone' });
    const [refused] = await update(['tor-exits.txt']);
    expect(refused?.outcome).toBe('refused');
    expect(existsSync(lock())).toBe(false);
    holder(NOW);
    const [checked] = await update(['tor-exits.txt'], { dryRun: true });
    expect(checked?.outcome).toBe('refused');
  });
});

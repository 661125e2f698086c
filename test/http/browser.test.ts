import { readFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedProject } from '../../src/cli/projects.js';
import { policiesDir } from '../../src/paths.js';
import { launchChromium, requireChromium } from '../support/chromium.js';
import { apiKey, post, startService, type TestServer } from '../support/server.js';

interface PageServer {
  origin: string;
  close(): Promise<void>;
}

/**
 * A web site on its own port: `/` loads the service's script and asks for a token (baseUrl: where the
 * script came from); `/explicit` names baseUrl; `?key=` overrides the public key. The outcome lands in
 * the DOM as data-token or data-error on <body>.
 */
async function startPageServer(api: string, publicKey: string): Promise<PageServer> {
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://page');
    const key = url.searchParams.get('key') ?? publicKey;
    const options = url.pathname === '/explicit' ? { publicKey: key, baseUrl: api } : { publicKey: key };
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html>
<html><head><meta charset="utf-8"><title>sign up</title>
<script src="${api}/v1/fingerprint.js"></script></head>
<body><script>
EmailTrust.fingerprint(${JSON.stringify(options)})
  .then((token) => { document.body.dataset.token = token; })
  .catch((error) => { document.body.dataset.error = error.message; document.body.dataset.status = String(error.status); });
</script></body></html>`);
  });
  server.listen(0, '127.0.0.1');
  await new Promise<void>((done, fail) => server.once('listening', done).once('error', fail));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}

let browser: Browser;
let service: TestServer;
let project: CreatedProject;
let allowed: PageServer;
let refused: PageServer;

beforeAll(async () => {
  requireChromium();
  service = await startService();
  project = await service.createProject({ name: 'browser-shop' });
  allowed = await startPageServer(service.url, project.keys.public_key);
  refused = await startPageServer(service.url, project.keys.public_key);
  await service.service.store.projects.update(project.project.id, { allowedOrigins: [allowed.origin] });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await allowed?.close();
  await refused?.close();
  await service?.close();
});

type Outcome = { token?: string; error?: string; status?: string };

/** Opens `url` in `context` (a browser profile) and waits until the page's script has settled. */
async function outcomeIn(context: BrowserContext, url: string): Promise<Outcome> {
  const page = await context.newPage();
  await page.goto(url);
  const body = await page.waitForSelector('body[data-token], body[data-error]', { state: 'attached' });
  const read = async (name: string) => (await body.getAttribute(`data-${name}`)) ?? undefined;
  return { token: await read('token'), error: await read('error'), status: await read('status') };
}

/** Opens `url` in a fresh browser context. */
async function outcome(url: string): Promise<Outcome> {
  const context = await browser.newContext();
  try {
    return await outcomeIn(context, url);
  } finally {
    await context.close();
  }
}

let devices = 0;
/** The device stored with an intelligence call that carried `token`. */
async function deviceOf(token: string | undefined): Promise<string> {
  const email = `device${++devices}@browser.example`;
  const res = await post(service.url, '/v1/intelligence', { email_address: email, fingerprint: token }, apiKey(project.keys.private_key));
  expect(res.status).toBe(200);
  const [row] = await service.service.store.knex('events').where({ project_id: project.project.id, email }).select('device');
  return row.device as string;
}

describe('the fingerprint script in Chromium', () => {
  it.each([
    ['baseUrl taken from where the script was loaded', '/'],
    ['baseUrl given', '/explicit'],
  ])('gets a token on an allowed origin (%s) that /v1/intelligence accepts', async (_label, path) => {
    const { token, error } = await outcome(`${allowed.origin}${path}`);
    expect(error).toBeUndefined();
    expect(token).toMatch(/^fp1\./);
    const email = `browser${path.length}@example.com`;
    const res = await post(service.url, '/v1/intelligence', { email_address: email, fingerprint: token }, apiKey(project.keys.private_key));
    expect(res.status).toBe(200);
    const rows = await service.service.store.knex('events').where({ project_id: project.project.id, email });
    expect(rows).toEqual([expect.objectContaining({ ipv4: '127.0.0.1', device: expect.any(String) })]);
  });

  it('gets no token on an origin the project does not allow: the promise rejects', async () => {
    const { token, error } = await outcome(`${refused.origin}/`);
    expect(token).toBeUndefined();
    expect(error).toMatch(/no readable answer from .*\/v1\/fingerprint/);
    expect(error).toContain(`${refused.origin} allowed with \`email-trust project set-origins\``);
  });

  it("rejects with the service's own message when the key is wrong (an allowed page can read the 401)", async () => {
    const { token, error, status } = await outcome(`${allowed.origin}/?key=etv_pk_wrong`);
    expect(token).toBeUndefined();
    expect(status).toBe('401');
    expect(error).toMatch(/^invalid credentials: the public key is unknown or revoked/);
  });

  it('keeps one device per browser profile (its id in localStorage), and tells two profiles on one machine apart', async () => {
    const profile = await browser.newContext();
    try {
      const first = await outcomeIn(profile, `${allowed.origin}/`);
      const again = await outcomeIn(profile, `${allowed.origin}/`);
      expect(first.token).not.toBe(again.token); // each token is sealed anew…
      expect(await deviceOf(again.token)).toBe(await deviceOf(first.token)); // …for the same device
      const other = await outcome(`${allowed.origin}/`); // same Chromium, same headers, another profile
      expect(await deviceOf(other.token)).not.toBe(await deviceOf(first.token));
    } finally {
      await profile.close();
    }
  });
});

/**
 * A reverse proxy in front of the service, as a load balancer would be: every request it forwards says,
 * in X-Forwarded-For, that it came from `clientIp` (the service trusts one hop: TRUST_PROXY=1).
 */
async function startProxy(target: string, clientIp: string): Promise<PageServer> {
  const upstream = new URL(target);
  const server: Server = createServer((req, res) => {
    const forwarded = request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...req.headers, 'x-forwarded-for': clientIp } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forwarded.on('error', () => res.destroy());
    req.pipe(forwarded);
  });
  server.listen(0, '127.0.0.1');
  await new Promise<void>((done, fail) => server.once('listening', done).once('error', fail));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

describe('the device signals of a token obtained in Chromium (plugins/device), behind a trusted proxy', () => {
  /** A British home connection (AS20712, ip_country GB) and another address of it. */
  const HOME_IP = '81.2.69.142';
  const OTHER_IP = '81.2.69.160';
  /** Chromium's own User-Agent on this machine, without the HeadlessChrome a headless launch reports. */
  const PERSON_UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36';
  /** Another British home (the same ISP): strict-signup blocks a third address from one IP within 30 minutes. */
  const TRAVELLER_IP = '81.2.69.77';
  let devices: TestServer;
  let shop: CreatedProject;
  /** The sign-up page of each home, its script loaded (and its token obtained) through that home's proxy. */
  const sites = new Map<string, { proxy: PageServer; page: PageServer }>();
  let person: Browser;

  beforeAll(async () => {
    devices = await startService({ env: { TRUST_PROXY: '1' } });
    shop = await devices.createProject({ name: 'device-shop', policyYaml: readFileSync(join(policiesDir, 'strict-signup.yaml'), 'utf8') });
    for (const ip of [HOME_IP, TRAVELLER_IP]) {
      const proxy = await startProxy(devices.url, ip);
      sites.set(ip, { proxy, page: await startPageServer(proxy.origin, shop.keys.public_key) });
    }
    const origins = [...sites.values()].map((site) => site.page.origin);
    await devices.service.store.projects.update(shop.project.id, { allowedOrigins: origins });
    person = await launchChromium({ automation: false });
  });
  afterAll(async () => {
    await person?.close();
    for (const { proxy, page } of sites.values()) {
      await page.close();
      await proxy.close();
    }
    await devices?.close();
  });

  /** A token from a fresh profile of `from` in time zone `timezoneId`, as a British English browser at home `ip`. */
  async function tokenIn(from: Browser, timezoneId: string, userAgent?: string, ip = HOME_IP): Promise<string> {
    const context = await from.newContext({ locale: 'en-GB', timezoneId, ...(userAgent ? { userAgent } : {}) });
    try {
      const { token, error } = await outcomeIn(context, `${sites.get(ip)?.page.origin}/`);
      expect(error).toBeUndefined();
      return token as string;
    } finally {
      await context.close();
    }
  }

  let signups = 0;
  /** Verify (show_results) of a new address with `token`, the sign-up's IP being `ip`. */
  async function signUp(token: string, ip: string) {
    const res = await post(
      devices.url,
      '/v1/public/verify',
      { email_address: `person${++signups}@example.com`, ipv4_address: ip, fingerprint: token, show_results: true },
      { authorization: `Bearer ${shop.keys.access_token}` },
    );
    expect(res.status).toBe(200);
    return res.body as { action: string; errors: string[]; warnings: string[]; analyzed_data: Record<string, unknown> };
  }

  it("a person's profile shows no device signal, and the token carries the proxy's client IP", async () => {
    const token = await tokenIn(person, 'Europe/London', PERSON_UA);
    const answer = await signUp(token, HOME_IP);
    expect(answer.analyzed_data).toMatchObject({
      device_risk_signals: [],
      device_timezone: 'Europe/London',
      device_ip_country_mismatch: 'false',
      device_is_automated: 'false',
      fingerprint_token_ips: '1',
      ip_country: 'GB',
    });
    expect([answer.action, answer.errors, answer.warnings]).toEqual(['allow', [], []]);
    // Intelligence takes the IP from the token: the address the proxy forwarded for, not its own.
    const intelligence = await post(
      devices.url,
      '/v1/intelligence',
      { email_address: 'person@example.com', fingerprint: token },
      apiKey(shop.keys.private_key),
    );
    expect(intelligence.body.ip).toMatchObject({ country: 'GB', asn: 20712, network_type: 'other' });
  });

  it('a profile driven with navigator.webdriver set (playwright-core, --enable-automation) shows automation', async () => {
    // The file's browser, launched as playwright-core launches it; the person's User-Agent: navigator.webdriver is all that tells this profile apart.
    const answer = await signUp(await tokenIn(browser, 'Europe/London', PERSON_UA), HOME_IP);
    expect(answer.analyzed_data.device_risk_signals).toEqual(['automation']);
    expect(answer.errors).toContain('device_automation_detected');
    expect(answer.action).toBe('block');
  });

  it('a token obtained from one IP and presented from a second shows replay', async () => {
    const token = await tokenIn(person, 'Europe/London', PERSON_UA);
    const answer = await signUp(token, OTHER_IP);
    expect(answer.analyzed_data).toMatchObject({ fingerprint_token_ips: '2', device_risk_signals: ['token_replay'] });
    expect(answer.errors).toContain('fingerprint_replayed');
    expect(answer.action).toBe('block');
  });

  it("a time zone forced by the browser context that is impossible for the IP's country shows the mismatch", async () => {
    const answer = await signUp(await tokenIn(person, 'Asia/Tokyo', PERSON_UA, TRAVELLER_IP), TRAVELLER_IP);
    expect(answer.analyzed_data).toMatchObject({
      device_timezone: 'Asia/Tokyo',
      device_ip_country_mismatch: 'true',
      device_risk_signals: ['timezone_mismatch'],
    });
    expect(answer.warnings).toContain('device_inconsistent');
    expect(answer.action).toBe('challenge');
  });
});

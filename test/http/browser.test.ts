import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedProject } from '../../src/cli/projects.js';
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

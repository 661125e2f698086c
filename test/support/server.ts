// The real service (composeService: policies, store, app) listening on an ephemeral port, with a
// temporary SQLite file (or, with `database: 'postgres'`, a private schema in the test PostgreSQL), for
// HTTP tests.
//
//   let server: TestServer;
//   beforeAll(async () => { server = await startService({ env: { RATE_LIMIT_IP: '3' } }); });
//   afterAll(() => server.close());
//   const { keys } = await server.createProject({ name: 'acme' });
//   const res = await post(server.url, '/v1/public/verify', { email_address: 'a@example.com' }, bearer(keys.access_token));
import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ComposeOptions, composeService, type Service } from '../../src/cli/compose.js';
import { type CreatedProject, createProjectWithKeys } from '../../src/cli/projects.js';
import { loadConfig } from '../../src/config.js';
import { createHttpServer } from '../../src/http/server.js';
import { createPostgresSchema } from './databases.js';

export interface StartOptions {
  /**
   * Environment overrides given to loadConfig (e.g. RATE_LIMIT_VERIFY, TRUST_PROXY, INTELLIGENCE_FORM).
   * The process environment is not read. Unless overridden, every rate limit is off (0) so that
   * tests making many quick calls are not refused, NETWORK_CHECKS is off and LOG_LEVEL is silent.
   */
  env?: Record<string, string>;
  /** DATABASE_URL (default: a temporary SQLite file, removed on close; another database is left as it is). */
  databaseUrl?: string;
  /** Address to listen on (default 127.0.0.1; `::` listens on IPv6 and, dual-stack, IPv4). */
  host?: string;
  compose?: ComposeOptions;
  /** Where the service stores: a temporary SQLite file (default) or a private schema in the test PostgreSQL. */
  database?: 'sqlite' | 'postgres';
}

export interface ProjectSpec {
  name: string;
  sandbox?: boolean;
  /** Stored as the project's policy source (policy label = project name); default: the `default` policy. */
  policyYaml?: string;
}

export interface TestServer {
  /** Base URL, e.g. http://127.0.0.1:43121 (for host `::`, http://[::1]:port). */
  url: string;
  port: number;
  service: Service;
  server: Server;
  createProject(spec: ProjectSpec): Promise<CreatedProject>;
  /** Stops listening, closes the store and removes the SQLite file. */
  close(): Promise<void>;
}

const RATE_LIMITS_OFF = {
  RATE_LIMIT_VERIFY: '0',
  RATE_LIMIT_IP: '0',
  RATE_LIMIT_INTELLIGENCE: '0',
  RATE_LIMIT_FINGERPRINT: '0',
  RATE_LIMIT_FEEDBACK: '0',
  RATE_LIMIT_FAILED_AUTH: '0',
};

export async function startService(options: StartOptions = {}): Promise<TestServer> {
  const dir = await mkdtemp(join(tmpdir(), 'email-trust-http-'));
  const host = options.host ?? '127.0.0.1';
  let service: Service | undefined;
  const postgres = options.database === 'postgres' ? await createPostgresSchema() : null;
  const removeStorage = async () => {
    await postgres?.drop();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const config = loadConfig({
      ...RATE_LIMITS_OFF,
      // Tests reach only servers they start themselves: a test that wants network checks points
      // DNS_SERVERS / RDAP_BASE_URL at its own and sets NETWORK_CHECKS=on.
      NETWORK_CHECKS: 'off',
      // Their DNS servers know only their own zones: a test of the resolvers' self-check names its canaries.
      DNS_CANARIES: 'off',
      // The shipped lists are past their maximum age by design (a release is a snapshot): tests of it set it on.
      DATA_AGE_CHECK: 'off',
      LOG_LEVEL: 'silent',
      ...options.env,
      DATABASE_URL: options.databaseUrl ?? postgres?.url ?? `sqlite:${join(dir, 'service.sqlite')}`,
      PORT: '0',
      HOST: host,
    });
    service = await composeService(config, options.compose);
    const server = createHttpServer(service.app, config.server, service.log).listen(0, host);
    await new Promise<void>((done, fail) => server.once('listening', done).once('error', fail));
    const { port } = server.address() as AddressInfo;
    const shown = host === '::' ? '::1' : host === '0.0.0.0' ? '127.0.0.1' : host;
    const running = service;
    let closed = false;
    return {
      url: `http://${shown.includes(':') ? `[${shown}]` : shown}:${port}`,
      port,
      service: running,
      server,
      createProject: (spec) =>
        createProjectWithKeys(running.store, {
          name: spec.name,
          sandbox: spec.sandbox ?? false,
          ...(spec.policyYaml === undefined ? { policy: 'default' } : { policy: spec.name, policySource: spec.policyYaml }),
        }),
      async close() {
        if (closed) return;
        closed = true;
        await new Promise<void>((done) => {
          server.close(() => done());
          server.closeAllConnections();
        });
        // A test may already have broken the store on purpose (e.g. destroyed its knex).
        await running.close().catch(() => undefined);
        await removeStorage();
      },
    };
  } catch (error) {
    await service?.close().catch(() => undefined);
    await removeStorage();
    throw error;
  }
}

export interface Reply {
  status: number;
  /** Parsed JSON when the body is JSON, else the text (undefined when empty). */
  // biome-ignore lint/suspicious/noExplicitAny: tests read reply bodies field by field
  body: any;
  text: string;
  headers: Headers;
}

/**
 * POST `path` on `url`. An object body is sent as JSON; a string is sent as it is (raw); undefined
 * sends no body. Content-Type is application/json unless `headers` sets it.
 */
export function post(url: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> {
  return send('POST', url, path, body, headers);
}

export async function send(method: string, url: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> {
  const hasContentType = Object.keys(headers).some((h) => h.toLowerCase() === 'content-type');
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { ...(hasContentType ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await res.text();
  let parsed: unknown = text === '' ? undefined : text;
  try {
    if (text !== '') parsed = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, body: parsed, text, headers: res.headers };
}

export const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });
export const apiKey = (token: string): Record<string, string> => ({ 'x-api-key': token });

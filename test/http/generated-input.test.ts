// Generated requests (fast-check, fixed seed) against one real service: whatever the body, the headers
// and the encoding, every answer is below 500, a refusal is in its endpoint's documented error shape
// and status, and the service still answers a plain request afterwards.
//
// `npm run fuzz` runs the same property FUZZ_RUNS times per endpoint (100,000) and prints the statuses
// seen; it records every violation instead of stopping at the first, and fails at the end if any.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedProject } from '../../src/cli/projects.js';
import {
  type Credentials,
  type EndpointName,
  echoedText,
  type GeneratedRequest,
  generatedAgent,
  generatedRequests,
  type RawReply,
  sendGenerated,
} from '../support/generated-requests.js';
import { apiKey, bearer, post, type Reply, startService, type TestServer } from '../support/server.js';
import { ACTIONS, expectPlainError, expectStatusError } from './contract.js';

/** Fixed: `npm test` sends the same requests every time (FUZZ_SEED overrides it for a fuzz run). */
const SEED = Number(process.env.FUZZ_SEED ?? 20261124);
const FUZZING = process.env.FUZZ_RUNS !== undefined;
const RUNS = FUZZING ? Number(process.env.FUZZ_RUNS) : 500;
/** Bodies their Content-Encoding does not decode (400, or 415) are generated too; GENERATED_UNDECODABLE=0 leaves them out. */
const UNDECODABLE = process.env.GENERATED_UNDECODABLE !== '0';

interface Endpoint {
  name: EndpointName;
  path: string;
  /** The statuses docs/api.md lists for a POST to this path (rate limits are off here). */
  statuses: number[];
  expectError: (reply: { status: number; body: unknown }, status: number, echoed: string) => void;
  expectAnswer: (body: unknown) => void;
  /** A plain request that must answer 200, after all the generated ones. */
  plain: () => Promise<Reply>;
}

let server: TestServer;
let project: CreatedProject;
let sandbox: CreatedProject;
let credentials: Credentials;

const ENDPOINTS: Endpoint[] = [
  {
    name: 'verify',
    path: '/v1/public/verify',
    statuses: [200, 400, 401, 413, 415],
    expectError: expectStatusError,
    expectAnswer: (body) => expect(ACTIONS).toContain((body as { action: unknown }).action),
    plain: () => post(server.url, '/v1/public/verify', { email_address: 'jane@example.com' }, bearer(project.keys.access_token)),
  },
  {
    name: 'intelligence',
    path: '/v1/intelligence',
    statuses: [200, 400, 401, 413, 415],
    expectError: expectPlainError,
    expectAnswer: (body) => expect(['allow', 'block', 'ignore']).toContain((body as { action: unknown }).action),
    plain: () => post(server.url, '/v1/intelligence', { email_address: 'jane@example.com' }, apiKey(project.keys.private_key)),
  },
  {
    name: 'fingerprint',
    path: '/v1/fingerprint',
    statuses: [200, 400, 401, 413, 415],
    expectError: expectPlainError,
    expectAnswer: (body) => expect((body as { fingerprint: unknown }).fingerprint).toMatch(/^fp1\.[\w-]+\.[\w-]+$/),
    plain: () => post(server.url, '/v1/fingerprint', {}, apiKey(project.keys.public_key)),
  },
  {
    name: 'feedback',
    path: '/v1/feedback',
    statuses: [200, 201, 400, 401, 404, 409, 413, 415],
    expectError: expectPlainError,
    expectAnswer: (body) => expect(['created', 'replaced', 'unchanged']).toContain((body as { outcome: unknown }).outcome),
    // A label on the plain verify's decision, sent twice: the second answers 200 whatever the generated ones left.
    plain: async () => {
      await post(server.url, '/v1/public/verify', { email_address: 'jane@example.com' }, bearer(project.keys.access_token));
      const label = () => post(server.url, '/v1/feedback', { email_address: 'jane@example.com', label: 'legitimate' }, apiKey(project.keys.private_key));
      await label();
      return label();
    },
  },
  {
    name: 'ip',
    path: '/v1/public/ip',
    statuses: [200, 400, 413, 415],
    expectError: expectStatusError,
    expectAnswer: (body) => expect(Object.keys(body as object).sort()).toEqual(['ipv4_address', 'ipv6_address']),
    plain: () => post(server.url, '/v1/public/ip'),
  },
];

beforeAll(async () => {
  // TRUST_PROXY walks the generated X-Forwarded-For entries (every request comes from loopback).
  server = await startService({ env: { TRUST_PROXY: 'loopback' } });
  project = await server.createProject({ name: 'generated' });
  sandbox = await server.createProject({ name: 'generated-sandbox', sandbox: true });
  const fingerprints: string[] = [];
  for (const key of [project.keys.public_key, project.keys.public_key, sandbox.keys.public_key]) {
    const res = await post(server.url, '/v1/fingerprint', {}, apiKey(key));
    fingerprints.push(res.body.fingerprint);
  }
  credentials = {
    accessTokens: [project.keys.access_token, sandbox.keys.access_token],
    privateKeys: [project.keys.private_key, sandbox.keys.private_key],
    publicKeys: [project.keys.public_key, sandbox.keys.public_key],
    fingerprints,
  };
});
afterAll(async () => {
  generatedAgent.destroy();
  await server.close();
});

/** Throws (an assertion error) when the reply breaks the endpoint's contract. */
function checkReply(endpoint: Endpoint, req: GeneratedRequest, reply: RawReply): void {
  expect(reply.status, reply.text.slice(0, 300)).toBeLessThan(500);
  expect(endpoint.statuses, `status ${reply.status}: ${reply.text.slice(0, 300)}`).toContain(reply.status);
  if (reply.status >= 400) endpoint.expectError(reply, reply.status, echoedText(req));
  else endpoint.expectAnswer(reply.body);
}

/** A violation as the fuzz run lists it: the message's first line and the request, abridged. */
function describeViolation(req: GeneratedRequest, error: unknown): string {
  const message = (error instanceof Error ? error.message : String(error)).split('\n')[0];
  const request = fc.stringify({ ...req, body: req.body?.slice(0, 200) });
  return `${message?.slice(0, 300)}\n    ${request.length > 600 ? `${request.slice(0, 600)}…` : request}`;
}

describe.each(ENDPOINTS)('generated requests to $path', (endpoint) => {
  it(
    `answers ${RUNS} generated requests (seed ${SEED}) below 500, refusals in the documented shape, and stays up`,
    async () => {
      const statuses = new Map<number, number>();
      const violations: string[] = [];
      await fc.assert(
        fc.asyncProperty(generatedRequests(endpoint.name, credentials, { undecodable: UNDECODABLE }), async (req) => {
          let reply: RawReply;
          try {
            reply = await sendGenerated(server.url, endpoint.path, req);
          } catch (error) {
            // A connection reset or refused is an answer too: the worst one.
            reply = { status: 0, headers: {}, text: String(error), body: undefined };
          }
          statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
          try {
            expect(reply.status, `no answer: ${reply.text}`).toBeGreaterThan(0);
            checkReply(endpoint, req, reply);
          } catch (error) {
            if (!FUZZING) throw error;
            violations.push(describeViolation(req, error));
          }
        }),
        { seed: SEED, numRuns: RUNS, endOnFailure: FUZZING },
      );
      if (FUZZING) {
        const counts = [...statuses].sort(([a], [b]) => a - b).map(([status, n]) => `${status}: ${n}`);
        console.log(`${endpoint.path}: ${RUNS} requests (seed ${SEED}) → ${counts.join(', ')}; ${violations.length} violations`);
        for (const violation of violations.slice(0, 5)) console.log(`  ${violation}`);
      }
      expect(violations).toEqual([]);
      const after = await endpoint.plain();
      expect(after.status).toBe(200);
      endpoint.expectAnswer(after.body);
    },
    FUZZING ? 24 * 3600_000 : 60_000,
  );
});

// The OpenAPI 3.1 description of this deployment, served at GET /v1/openapi.json and rendered at /docs.
// Built once at start from the request and response schemas of schemas/, the plugin registry (its steps,
// codes and checked types, and which flags and analyzed_data fields verify can answer) and the configuration (the intelligence form and
// the rate limits this instance applies). test/http/openapi.test.ts validates it and checks real
// answers against it, so it cannot drift from what the service does.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../../config.js';
import { exposedAs, type FactCatalog } from '../../engine/catalog.js';
import type { FactSpec } from '../../engine/plugin.js';
import { wordsOf } from '../../engine/words.js';
import { packageRoot } from '../../paths.js';
import { vocabularySchema } from '../../schemas.js';
import { type JsonObject, SchemaComponents } from './components.js';

export type OpenApiDocument = JsonObject;

export interface DescriptionInputs {
  catalog: FactCatalog;
  config: Pick<Config, 'intelligenceForm' | 'rateLimits'>;
}

type Shape = 'status' | 'plain';

const JSON_TYPE = 'application/json';

/** The version of the interface this service implements (the specification's 1.0.0). */
export const INTERFACE_VERSION = '1.0.0';

export function buildOpenApiDocument({ catalog, config }: DescriptionInputs): OpenApiDocument {
  // The steps and checked types verify can answer are the registry's.
  const components = new SchemaComponents(vocabularySchema(wordsOf([...catalog.plugins.values()])));
  const request = (file: string, name: string, example: JsonObject) => ({
    required: true,
    content: { [JSON_TYPE]: { schema: components.addFile(file, name), example } },
  });
  const verifyResponse = components.addFile('verify-response.schema.json', 'VerifyResponse');
  describeExposedFacts(components.schemas.VerifyResponse as JsonObject, catalog);
  components.addFile('intelligence-response.schema.json', 'IntelligenceResponse');
  const intelligenceResponse = components.addDefinition('intelligence-response.schema.json', `intelligenceResponseForm${config.intelligenceForm}`);
  const feedbackResponse = components.addFile('feedback-response.schema.json', 'FeedbackResponse');
  const errors = {
    status: components.addDefinition('error-response.schema.json', 'statusError'),
    plain: components.addDefinition('error-response.schema.json', 'plainError'),
  };
  const limits = config.rateLimits;
  const error = (shape: Shape, description: string, headers?: JsonObject): JsonObject => ({
    description,
    headers: { ...REQUEST_ID, ...headers },
    content: { [JSON_TYPE]: { schema: errors[shape] } },
  });
  const refusals = (shape: Shape, statuses: readonly number[]): JsonObject =>
    Object.fromEntries(
      statuses.map((status) => [
        String(status),
        error(shape, REFUSALS[status] ?? '', status === 429 ? { ...RETRY_AFTER, ...RATE_LIMIT_FIELDS } : status === 503 ? RETRY_AFTER : undefined),
      ]),
    );
  const ok = (description: string, schema: JsonObject) => ({ description, headers: REQUEST_ID, content: { [JSON_TYPE]: { schema } } });
  const decided = (description: string, schema: JsonObject) => ({ ...ok(description, schema), headers: { ...REQUEST_ID, ...DECISION_ID } });

  return {
    openapi: '3.1.0',
    info: {
      title: 'email-trust',
      // The interface's version, as the specification gives it; the build serving it is x-service-version.
      version: INTERFACE_VERSION,
      'x-service-version': packageVersion(),
      summary: 'Email trust verification: a recommended action and its evidence for an email address at sign-up.',
      description: INFO_DESCRIPTION,
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: '/', description: 'This instance' }],
    tags: [
      { name: 'verification', description: 'Checking an address against the project policy.' },
      { name: 'browser', description: 'Called from web pages: the client address and the device fingerprint.' },
      { name: 'service', description: 'This description.' },
      { name: 'operations', description: 'Health, readiness and metrics, for load balancers and monitoring (docs/operations.md).' },
    ],
    paths: {
      '/v1/public/verify': {
        post: {
          operationId: 'verify',
          tags: ['verification'],
          summary: 'Trust verification: the recommended action for an address',
          description: `Checks the address (and optionally the caller's IP) against the policy of the project that owns the access token. Every answered call is stored as an event before the response is sent. Rate limit: ${perSecond(limits.verify, 'access token')} (RATE_LIMIT_VERIFY).`,
          security: [{ accessToken: [] }],
          requestBody: request('verify-request.schema.json', 'VerifyRequest', {
            email_address: 'jane.doe+news@gmail.com',
            ipv4_address: '203.0.113.7',
            show_results: true,
            show_steps: true,
          }),
          responses: {
            '200': decided('The recommended action and, as asked, its evidence.', verifyResponse),
            ...refusals('status', [400, 401, 413, 415, 429, 500, 503]),
          },
        },
      },
      '/v1/intelligence': {
        post: {
          operationId: 'intelligence',
          tags: ['verification'],
          summary: 'User trust: verdict, normalised forms, analysis and velocity of an address',
          description: `Server-side only (private key). The verdict comes from the policy's intelligence section, or from custom_policy for a sandbox project. This instance answers form ${config.intelligenceForm} (INTELLIGENCE_FORM). Rate limit: ${perSecond(limits.intelligence, 'private key')} (RATE_LIMIT_INTELLIGENCE).`,
          security: [{ privateKey: [] }],
          requestBody: request('intelligence-request.schema.json', 'IntelligenceRequest', { email_address: 'Jane.Doe+news@gmail.com' }),
          responses: { '200': decided('The verdict and the analysis.', intelligenceResponse), ...refusals('plain', [400, 401, 413, 415, 429, 500, 503]) },
        },
      },
      '/v1/feedback': {
        post: {
          operationId: 'feedback',
          tags: ['verification'],
          summary: 'Feedback: label a decision with its outcome (fraud, bounced, legitimate …)',
          description: `Server-side only (private key). Names one decision of the key's project: by decision_id (an X-Decision-Id or an event id), or by email_address (its newest decision, from ipv4_address or ipv6_address when given). A decision has one current label: the same label and note again change nothing, another replaces it (the earlier one is kept in its history). Labels feed the reputation facts and \`email-trust policy replay --labels\`. Rate limit: ${perSecond(limits.feedback, 'private key')} (RATE_LIMIT_FEEDBACK).`,
          security: [{ privateKey: [] }],
          requestBody: request('feedback-request.schema.json', 'FeedbackRequest', {
            decision_id: '01938f5e-7c1a-7b3e-9d2f-5a4b3c2d1e0f',
            label: 'fraud',
            note: 'chargeback, ticket 4411',
          }),
          responses: {
            '201': ok('The decision had no label: the label as stored.', feedbackResponse),
            '200': ok('The decision had a label: replaced by this one, or the same again (unchanged).', feedbackResponse),
            '404': error('plain', 'No decision of this project has this decision_id, or none was made on this address (from this IP).'),
            '409': error('plain', "Other calls kept changing this decision's label while this one was stored: send it again."),
            ...refusals('plain', [400, 401, 413, 415, 429, 500, 503]),
          },
        },
      },
      '/v1/fingerprint': {
        post: {
          operationId: 'fingerprint',
          tags: ['browser'],
          summary: 'Fingerprint (beta): a sealed device token for the user trust operation',
          description: `Called from the browser with the public key (GET /v1/fingerprint.js does it). CORS: answered for the origins the project allows (email-trust project set-origins). Rate limit: ${perSecond(limits.fingerprint, 'public key')} (RATE_LIMIT_FINGERPRINT).`,
          security: [{ publicKey: [] }],
          requestBody: { ...request('fingerprint-request.schema.json', 'FingerprintRequest', {}), required: false },
          responses: {
            '200': ok('A fingerprint token.', components.addFile('fingerprint-response.schema.json', 'FingerprintResponse')),
            ...refusals('plain', [400, 401, 413, 415, 429, 500, 503]),
          },
        },
      },
      '/v1/public/ip': {
        post: {
          operationId: 'clientIp',
          tags: ['browser'],
          summary: "Client IP: the caller's address",
          description: `No authentication, no parameters; a body is ignored but must be JSON. The client is the socket's peer unless TRUST_PROXY says who is in front. Rate limit: ${perSecond(limits.ip, 'client address')} (RATE_LIMIT_IP).`,
          security: [],
          responses: {
            '200': ok("The caller's address.", components.addFile('ip-response.schema.json', 'IpResponse')),
            ...refusals('status', [400, 413, 415, 429, 500]),
          },
        },
      },
      '/v1/fingerprint.js': {
        get: {
          operationId: 'fingerprintScript',
          tags: ['browser'],
          summary: 'The browser script that obtains a fingerprint',
          description: 'Defines EmailTrust.fingerprint({ publicKey, baseUrl? }) → Promise<string>. Cached for an hour, then revalidated by ETag.',
          security: [],
          responses: {
            '200': { description: 'The script.', content: { 'text/javascript': { schema: { type: 'string' } } } },
            '304': { description: 'Not modified (If-None-Match matched the ETag).' },
          },
        },
      },
      '/healthz': {
        get: {
          operationId: 'health',
          tags: ['operations'],
          summary: 'Liveness: the process answers',
          security: [],
          responses: { '200': ok('The process answers.', { type: 'object', required: ['status'], properties: { status: { const: 'ok' } } }) },
        },
      },
      '/readyz': {
        get: {
          operationId: 'readiness',
          tags: ['operations'],
          summary:
            'Readiness: the database answers, the policies are loaded (and Redis answers when configured); the revision in use of each policy, and whether the network checks run',
          security: [],
          responses: {
            '200': ok('Ready for traffic.', READINESS),
            '503': {
              description: 'Not ready: the failing parts are named (or the instance is stopping).',
              headers: REQUEST_ID,
              content: { [JSON_TYPE]: { schema: READINESS } },
            },
          },
        },
      },
      '/metrics': {
        get: {
          operationId: 'metrics',
          tags: ['operations'],
          summary: 'Prometheus metrics',
          description:
            'On the main port unless METRICS_PORT is set (then only there); requires Authorization: Bearer <METRICS_TOKEN> when METRICS_TOKEN is set.',
          security: [],
          responses: {
            '200': { description: 'The Prometheus text exposition.', content: { 'text/plain': { schema: { type: 'string' } } } },
            '401': { description: 'METRICS_TOKEN is set and the request does not carry it.' },
          },
        },
      },
      '/v1/openapi.json': {
        get: {
          operationId: 'openApiDocument',
          tags: ['service'],
          summary: 'This description (OpenAPI 3.1)',
          security: [],
          responses: { '200': { description: 'The OpenAPI document; rendered at /docs.', content: { [JSON_TYPE]: { schema: { type: 'object' } } } } },
        },
      },
    },
    components: {
      securitySchemes: {
        accessToken: {
          type: 'http',
          scheme: 'bearer',
          description:
            "An access token (etv_at_…) of the project, for POST /v1/public/verify: `Authorization: Bearer <token>`. Keep it on your servers, like the private key: verify's answers can list the addresses other sign-ups used from the same IP (analyzed_data.emails_in_ip).",
        },
        privateKey: {
          type: 'apiKey',
          in: 'header',
          name: 'x-api-key',
          description: 'A private key (etv_sk_…), for POST /v1/intelligence. Keep it on your servers.',
        },
        publicKey: {
          type: 'apiKey',
          in: 'header',
          name: 'x-api-key',
          description: 'A public key (etv_pk_…), for POST /v1/fingerprint: safe in browsers.',
        },
      },
      schemas: components.schemas,
    },
  };
}

const INFO_DESCRIPTION = [
  "Call it at sign-up with an email address (and optionally the caller's IP): it answers a recommended `action` and the evidence behind it. What a project checks, and which action follows, is its policy.",
  '',
  'Keys are created with `email-trust key create` (or printed once at the first start). Errors of verify and ip are `{code, error, id, status: false}`; of intelligence and fingerprint `{error, code, id}`. Every answer carries `X-Request-Id`; every verify and intelligence decision `X-Decision-Id`, the id of its stored event. A 429 or 503 carries `Retry-After`.',
  '',
  'The reference, with every field, status and limit, is docs/api.md in the repository.',
].join('\n');

const REFUSALS: Readonly<Record<number, string>> = {
  400: 'The body is not JSON, not an object, or fails the request schema (the message names the field); or the operation refuses a value (a fingerprint, a custom_policy).',
  401: 'Missing, malformed, unknown, revoked or wrong-kind key; a key of another kind is named, with where it belongs.',
  413: 'The body is over 16,384 bytes.',
  415: 'A Content-Encoding other than gzip, deflate or br.',
  429: "Rate limit exceeded, too many failed authentications from this client (a valid key is still answered), or the project's monthly quota is used up (the message says which; Retry-After until the next month for the quota). Back off exponentially.",
  500: 'Unexpected error: the message quotes an id that is also in the service log. The call was not recorded.',
  503: 'The database cannot be reached; the service recovers by itself.',
};

const REQUEST_ID: JsonObject = {
  'X-Request-Id': {
    description:
      "The request's id: the caller's own X-Request-Id when it is sane (up to 128 letters, digits and ._:@/+=-), else a new UUID; also in every error body and in the access log.",
    required: true,
    schema: { type: 'string', minLength: 1 },
  },
};

const DECISION_ID: JsonObject = {
  'X-Decision-Id': {
    description:
      'The id of the decision this answer gives, as stored with its event (a UUIDv7): `email-trust events show ID` prints what was decided and why. Only answers that were decided and stored carry it.',
    required: true,
    schema: { type: 'string', format: 'uuid' },
  },
};

const READINESS: JsonObject = {
  type: 'object',
  required: ['status', 'checks'],
  properties: {
    status: { type: 'string', enum: ['ready', 'unavailable'] },
    checks: { type: 'object', additionalProperties: { type: 'object' } },
    error: { type: 'string' },
    failing: { type: 'array', items: { type: 'string' } },
    degraded: {
      type: 'array',
      items: { type: 'string' },
      description: 'Optional parts that fail (Redis, DNS, data lists past their maximum age): the instance serves without them and stays ready.',
    },
    policies: {
      type: 'object',
      description: 'The revision in use of each named policy (and the folder it came from), and of each project with a stored policy.',
      required: ['named', 'projects'],
      properties: {
        named: {
          type: 'object',
          additionalProperties: {
            type: 'object',
            required: ['revision', 'from'],
            properties: { revision: { type: 'string' }, from: { type: 'string', enum: ['POLICIES_DIR', 'shipped'] } },
          },
        },
        projects: {
          type: 'object',
          additionalProperties: { type: 'object', required: ['policy', 'revision'], properties: { policy: { type: 'string' }, revision: { type: 'string' } } },
        },
      },
    },
    network: {
      type: 'object',
      description: 'Whether the network checks run (NETWORK_CHECKS) and the DNS servers they ask: DNS_SERVERS, or the system’s.',
      required: ['checks'],
      properties: {
        checks: { type: 'string', enum: ['on', 'off'] },
        resolvers: { type: 'array', items: { type: 'string' } },
        resolvers_from: { type: 'string', enum: ['DNS_SERVERS', 'system'] },
      },
    },
    id: { type: 'string' },
  },
};

const RETRY_AFTER: JsonObject = {
  'Retry-After': { description: 'Seconds to wait before retrying (at least 1).', required: true, schema: { type: 'string', pattern: '^[0-9]+$' } },
};

/** The IETF fields of every 429 (draft-ietf-httpapi-ratelimit-headers-09, src/http/middleware/rate-limit.ts). */
const RATE_LIMIT_FIELDS: JsonObject = {
  'RateLimit-Policy': {
    description:
      'The limit that refused, as a structured field: its name (`verify`, `ip`, `intelligence`, `fingerprint`, `failed_auth` or `quota`), `q` its quota of requests and `w` its window in seconds (a calendar month for `quota`), e.g. `"verify";q=10;w=1`.',
    required: true,
    schema: { type: 'string', pattern: '^"[a-z_]+";q=[0-9]+;w=[0-9]+$' },
  },
  RateLimit: {
    description: 'What is left of that limit: `r` the requests remaining (0) and `t` the seconds until it frees (as Retry-After), e.g. `"verify";r=0;t=1`.',
    required: true,
    schema: { type: 'string', pattern: '^"[a-z_]+";r=0;t=[0-9]+$' },
  },
};

function perSecond(limit: number, per: string): string {
  return limit > 0 ? `at most ${limit} requests per second per ${per}` : 'none on this instance';
}

function packageVersion(): string {
  return (JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version: string }).version;
}

/**
 * Fills verify's flags and analyzed_data fields from the plugins' exposed facts, each with its
 * description: flags are booleans or null (not checked), analyzed_data scalars are strings. A fact
 * exposed in some other way must already be described by verify-response.schema.json.
 */
function describeExposedFacts(verify: JsonObject, catalog: FactCatalog): void {
  const root = verify.properties as JsonObject;
  const analyzed = root.analyzed_data as JsonObject;
  const analyzedFields = analyzed.properties as JsonObject;
  for (const plugin of catalog.plugins.values()) {
    for (const [name, spec] of Object.entries(plugin.facts)) {
      if (exposedAs(spec, 'flag')) root[name] = { type: ['boolean', 'null'], description: `${spec.description} null: not checked.` };
      if (exposedAs(spec, 'analyzed_data') && !analyzedFields[name]) analyzedFields[name] = analyzedScalar(name, spec);
      for (const as of ['field', 'result'] as const) {
        if (exposedAs(spec, as) && !root[name])
          throw new Error(`schemas/verify-response.schema.json does not describe ${name}, exposed as a ${as} by plugin ${plugin.id}`);
      }
    }
  }
  verify.additionalProperties = false;
  analyzed.additionalProperties = false;
}

function analyzedScalar(name: string, spec: FactSpec): JsonObject {
  const described = { description: spec.description };
  switch (spec.type) {
    case 'boolean':
      return { ...described, type: 'string', enum: ['true', 'false'] };
    case 'integer':
      return { ...described, type: 'string', pattern: '^-?[0-9]+$' };
    case 'number':
      return { ...described, type: 'string', pattern: '^-?[0-9]+(\\.[0-9]+)?(e[-+]?[0-9]+)?$' };
    case 'string':
      return spec.values ? { ...described, type: 'string', enum: [...spec.values] } : { ...described, type: 'string' };
    default:
      throw new Error(`schemas/verify-response.schema.json does not describe analyzed_data.${name} (a ${spec.type})`);
  }
}

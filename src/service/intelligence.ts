// POST /v1/intelligence: the address's analysis, its normalised forms and its velocity. This is the
// foundation's form of the operation: details come from the offline checks that exist so far; the
// classification, deliverability, IP intelligence and the custom_policy verdict arrive with their checks.
import type { PolicyRunner } from '../engine/run.js';
import type { ParentRule } from '../policy/types.js';
import { canonicalIp } from '../store/events.js';
import type { Project } from '../store/projects.js';
import type { ServiceContext } from './context.js';
import { InvalidRequest } from './errors.js';
import { FingerprintError, type FingerprintPayload, type FingerprintSealer } from './fingerprint.js';

export interface IntelligenceRequest {
  email_address: string;
  fingerprint?: string;
  custom_policy?: { version?: string; stop_on_block?: boolean; parent_rules?: ParentRule[] };
}

const VELOCITY_ITEMS = 20;

export interface IntelligenceDeps {
  /** Runs plugins for their facts only (no rules). */
  facts: PolicyRunner;
  sealer: FingerprintSealer;
}

export async function intelligence(ctx: ServiceContext, deps: IntelligenceDeps, project: Project, request: IntelligenceRequest) {
  if (request.custom_policy && !project.sandbox) {
    throw new InvalidRequest('custom_policy: accepted only for sandbox projects (it is a testing override)');
  }
  let device: FingerprintPayload | null = null;
  if (request.fingerprint) {
    try {
      device = deps.sealer.open(request.fingerprint, project.id, ctx.now());
    } catch (error) {
      if (error instanceof FingerprintError) throw new InvalidRequest(`fingerprint: ${error.message}`);
      throw error;
    }
  }
  const outcome = await deps.facts.run({
    input: { email: request.email_address, ipv4: device?.ip4 ?? null, ipv6: device?.ip6 ?? null, softCheck: false, projectId: project.id },
    options: {},
    services: { velocity: ctx.store.events.velocityReader(project.id), now: ctx.now },
  });
  const f = async (name: string) => (await outcome.fact(name)) ?? null;
  const base = request.email_address.toLowerCase();
  const history = await ctx.store.events.byEmail(project.id, base, VELOCITY_ITEMS);
  const form = ctx.config.intelligenceForm;

  const response: Record<string, unknown> = {
    action: 'ignore',
    email: {
      normalized: {
        base: (await f('valid_address_format')) === true ? base : null,
        without_plus_addressing: null,
        without_dot_variations: null,
        without_punycode: null,
        without_typo_mismatch: null,
      },
      details: {
        deliverability: 'unknown',
        local: {
          fraud_pattern: null,
          mixed_script: await f('mixed_script'),
          has_fraud_pattern: null,
          has_mixed_script: await f('has_mixed_script'),
          has_dot_variation: await f('has_dot_variation'),
          has_plus_addressing: await f('has_plus_addressing'),
          has_special_characters: await f('has_special_characters'),
          has_numeric: await f('has_numeric'),
          has_hyphen: await f('has_hyphen'),
          has_underscore: await f('has_underscore'),
          is_quoted: await f('is_quoted'),
        },
        domain: {
          category: 'unknown',
          free_provider: null,
          punycode_value: await f('punycode_value'),
          has_valid_tld: await f('has_valid_tld'),
          has_website: null,
          has_punycode: await f('has_punycode'),
          has_typo_mismatch: null,
          is_ipv4: await f('is_ipv4'),
          is_ipv6: await f('is_ipv6'),
          is_only_numeric: await f('is_only_numeric'),
          is_single_label: await f('is_single_label'),
          subdomain: {
            count: await f('subdomain_count'),
            has_hyphen: await f('subdomain_has_hyphen'),
            has_numeric: await f('subdomain_has_numeric'),
            has_uuid: await f('subdomain_has_uuid'),
            has_wildcard: await f('subdomain_has_wildcard'),
          },
        },
      },
    },
  };
  if (form === 'B') response.ip = { is_datacenter: null, is_tor: null, is_vpn: null };
  response.velocity_by_email = {
    items: history.items.map((item) =>
      form === 'A'
        ? { base_email: item.baseEmail, created_at: Math.floor(item.at / 1000) }
        : { passed_email: item.email, created_at: Math.floor(item.at / 1000) },
    ),
    count: history.count,
  };
  if (form === 'B') response.velocity_by_ip = { items: [], count: 0 };

  const domain = await f('domain');
  await ctx.store.events.record({
    projectId: project.id,
    endpoint: 'intelligence',
    email: request.email_address,
    baseEmail: base,
    domain: typeof domain === 'string' ? domain : null,
    ipv4: canonicalIp(device?.ip4),
    ipv6: canonicalIp(device?.ip6),
    device: device?.device ?? null,
    action: 'ignore',
    createdAt: ctx.now(),
  });
  return response;
}

// MX and A/AAAA records of the address's domain (in ASCII form): can mail be routed there at all?
// Lookups go through ctx.network.dns, which caches and bounds them; an unanswered question is
// "not_checked", never "invalid".
import type { DnsAnswer, DnsLookup, FactValues, Plugin } from '../../src/engine/plugin.js';
import { asciiDomainOf } from '../plugin-data.js';
import { mailRoutingFacts } from './mail-routing.js';

const STATUS_VALUES = ['valid', 'invalid', 'not_checked'] as const;
const FALLBACK_VALUES = ['valid', 'not_needed', 'invalid'] as const;

const plugin: Plugin = {
  id: 'dns',
  description: 'Looks up the MX, A and AAAA records of the domain: null MX, no MX, NXDOMAIN and the implicit-MX fallback.',
  steps: ['mx_record', 'fallback_a_record'],
  codes: {
    no_mx_records: { error: 'dns' },
    no_a_record: { error: 'dns' },
  },
  io: true,
  network: true,
  facts: {
    mx_record_count: { type: 'integer', description: 'MX records naming a mail host (a null MX "." is not counted); 0 when none.', expose: 'analyzed_data' },
    mx_record_status: {
      type: 'string',
      description: 'valid: MX hosts exist; invalid: NXDOMAIN, no MX or a null MX; not_checked: the lookup failed, timed out or is off.',
      values: STATUS_VALUES,
      unknownValues: ['not_checked'],
      expose: 'analyzed_data',
    },
    a_record_fallback: {
      type: 'string',
      description: 'not_needed: MX hosts exist; valid: no MX but an A/AAAA address; invalid: nowhere to deliver.',
      values: FALLBACK_VALUES,
      expose: 'analyzed_data',
    },
    a_record_count: { type: 'integer', description: 'A records of the domain; 0 when none.', expose: 'analyzed_data' },
    aaaa_record_count: { type: 'integer', description: 'AAAA records of the domain; 0 when none.', expose: 'analyzed_data' },
    has_null_mx: { type: 'boolean', description: 'The domain publishes a null MX (RFC 7505): it accepts no mail.' },
    mx_hosts_are_ips: { type: 'boolean', description: 'An MX record names an IP address instead of a host name (a misconfiguration).' },
  },
  checks: {
    mx_record: {
      description: 'The domain has no MX host: NXDOMAIN, no MX records, or a null MX.',
      // mx_record_count is null exactly when the status is not_checked, so on_unknown sees the unknown.
      when: {
        all: [
          { fact: 'mx_record_status', operator: 'equal', value: 'invalid' },
          { fact: 'mx_record_count', operator: 'equal', value: 0 },
        ],
      },
      code: 'no_mx_records',
      checkedType: 'mx_record',
    },
    fallback_a_record: {
      description: 'Mail cannot be routed: no MX host and no A/AAAA address to fall back to (or a null MX).',
      when: { fact: 'a_record_fallback', operator: 'equal', value: 'invalid' },
      code: 'no_a_record',
      checkedType: 'mx_record',
    },
  },
  needs: ['structure', 'idn'],
  async run(ctx): Promise<FactValues> {
    // Address literals and names DNS cannot hold are not asked about: their facts stay unknown.
    const domain = await asciiDomainOf(ctx, 'dns');
    if (domain === null) return {};
    if (!ctx.network.enabled) return { mx_record_status: 'not_checked' };
    return lookUp(ctx.network.dns, domain);
  },
};

async function lookUp(dns: DnsLookup, domain: string): Promise<FactValues> {
  const failed = (error: unknown): DnsAnswer<never> => ({ status: 'error', reason: error instanceof Error ? error.message : 'lookup failed' });
  const [mx, a, aaaa] = await Promise.all([dns.mx(domain).catch(failed), dns.a(domain).catch(failed), dns.aaaa(domain).catch(failed)]);
  return mailRoutingFacts(mx, a, aaaa);
}

export default plugin;

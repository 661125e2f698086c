// Domain form: an IP address instead of a name, a single-label name, or an all-digit name.
import { isIPv4, isIPv6 } from 'node:net';
import type { FactValues, Plugin } from '../../src/engine/plugin.js';
import { formatCheck } from '../fact-checks.js';

/** Longest textual IP address ("ffff:…:255.255.255.255"); longer domains are not parsed as one. */
const MAX_IP_TEXT = 45;

/** Every label non-empty and ASCII digits only. */
function isOnlyNumeric(domain: string): boolean {
  let labelLength = 0;
  for (let i = 0; i < domain.length; i++) {
    const c = domain.charCodeAt(i);
    if (c === 0x2e) {
      if (labelLength === 0) return false;
      labelLength = 0;
    } else if (c >= 0x30 && c <= 0x39) {
      labelLength++;
    } else {
      return false;
    }
  }
  return labelLength > 0;
}

const plugin: Plugin = {
  id: 'domain-form',
  description: 'Whether the domain is an IP address (literal or bare), a single label, or numeric labels only.',
  steps: ['domain_ipv4', 'domain_ipv6', 'domain_single_label', 'domain_numeric_only'],
  codes: {
    domain_is_ipv4_address: { error: 'domain' },
    domain_is_ipv6_address: { error: 'domain' },
    domain_is_single_label: { error: 'domain' },
    domain_is_numeric_only: { error: 'domain' },
  },
  facts: {
    is_ipv4: { type: 'boolean', description: 'The domain is an IPv4 address: a literal [1.2.3.4] or a bare 1.2.3.4.' },
    is_ipv6: { type: 'boolean', description: 'The domain is an IPv6 address: a literal [IPv6:…] or a bare one.' },
    is_single_label: { type: 'boolean', description: 'The domain is a name of one label (localhost); false for IPs.' },
    is_only_numeric: {
      type: 'boolean',
      description: 'Every label of the domain name is digits only (123.456); false for literals.',
    },
  },
  checks: {
    domain_ipv4: formatCheck('is_ipv4', 'domain_is_ipv4_address', 'The domain is an IPv4 address.'),
    domain_ipv6: formatCheck('is_ipv6', 'domain_is_ipv6_address', 'The domain is an IPv6 address.'),
    domain_single_label: formatCheck('is_single_label', 'domain_is_single_label', 'The domain has a single label.'),
    domain_numeric_only: formatCheck('is_only_numeric', 'domain_is_numeric_only', 'The domain is digits and dots only.'),
  },
  needs: ['structure'],
  async run(ctx) {
    // Both structure's.
    return domainFormFacts(await ctx.fact('domain'), await ctx.fact('domain_literal'));
  },
};

function domainFormFacts(domain: unknown, literal: unknown): FactValues {
  if (typeof domain !== 'string') return {};
  const bracketed = domain.startsWith('[');
  const bareIp = !bracketed && domain.length <= MAX_IP_TEXT;
  const ipv4 = literal === 'ipv4' || (bareIp && isIPv4(domain));
  // node accepts zone ids ("fe80::1%eth0"), which are no part of an address.
  const ipv6 = literal === 'ipv6' || (bareIp && !domain.includes('%') && isIPv6(domain));
  return {
    is_ipv4: ipv4,
    is_ipv6: ipv6,
    is_single_label: !bracketed && !ipv6 && domain.length > 0 && !domain.includes('.'),
    is_only_numeric: !bracketed && isOnlyNumeric(domain),
  };
}

export default plugin;

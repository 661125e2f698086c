// The request's own IP addresses as facts, so that a condition can test them: a free rule or an exemption
// (`ips:`) lists networks with the inNetworks operator (src/engine/operators.ts).
import type { FactValues, Plugin } from '../../src/engine/plugin.js';

const plugin: Plugin = {
  id: 'request-ip',
  description: "The caller's IP addresses (verify's ipv4_address and ipv6_address, intelligence's fingerprint), for conditions to test.",
  steps: [],
  facts: {
    ipv4_address: {
      type: 'string',
      description: "The caller's IPv4 address as the service stores it; null without one. Test it against networks with inNetworks.",
    },
    ipv6_address: {
      type: 'string',
      description: "The caller's IPv6 address, compressed lower case (RFC 5952); null without one. Test it against networks with inNetworks.",
    },
  },
  checks: {},
  needs: [],
  async run(ctx): Promise<FactValues> {
    return { ipv4_address: ctx.input.ipv4, ipv6_address: ctx.input.ipv6 };
  },
};

export default plugin;

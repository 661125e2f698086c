// What the service says of its network checks where an operator looks (the listening line, GET /readyz):
// whether they run, and the DNS servers they ask, so a wrong resolver (one that answers NXDOMAIN for every
// name, a container's default) shows before its answers do.
import { Resolver } from 'node:dns';
import type { NetworkConfig } from '../config.js';

export type NetworkSummary =
  | { checks: 'off' }
  | {
      checks: 'on';
      /** The DNS servers asked, as DNS_SERVERS gives them or as the system's resolver reads /etc/resolv.conf. */
      resolvers: string[];
      resolvers_from: 'DNS_SERVERS' | 'system';
    };

export function summarizeNetwork(config: NetworkConfig): NetworkSummary {
  if (!config.enabled) return { checks: 'off' };
  if (config.dnsServers.length > 0) return { checks: 'on', resolvers: [...config.dnsServers], resolvers_from: 'DNS_SERVERS' };
  // A new resolver reads the system's configuration as the checks' own resolvers (network/dns.ts) did at start.
  return { checks: 'on', resolvers: new Resolver().getServers(), resolvers_from: 'system' };
}

// The dns plugin's facts a test expects of a domain, written once for the plugins that read them
// (deliverability, domain-health): counts and statuses in, the facts by their names out.
import type { FactValues } from '../../src/engine/plugin.js';

export const dnsFacts = (
  mxCount: number | null,
  status: string,
  fallback: string | null,
  a: number | null,
  aaaa: number | null,
  nullMx: boolean | null = false,
  ipHosts: boolean | null = false,
): FactValues => ({
  mx_record_count: mxCount,
  mx_record_status: status,
  a_record_fallback: fallback,
  a_record_count: a,
  aaaa_record_count: aaaa,
  has_null_mx: nullMx,
  mx_hosts_are_ips: ipHosts,
});

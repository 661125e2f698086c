// From the MX, A and AAAA answers of a domain to the dns facts: can mail be routed to it?
// RFC 5321 §5.1: MX records decide; only when a domain has none does its A/AAAA address serve
// ("implicit MX"). RFC 7505: a single MX "." with preference 0 says the domain accepts no mail.
import { isIP } from 'node:net';
import type { DnsAnswer, FactValues, MxRecord } from '../../src/engine/plugin.js';

/** The root name as an MX exchange: node reports it as "", zone files write ".". */
const isRoot = (exchange: string): boolean => exchange === '' || exchange === '.';

/** RFC 7505 null MX: exactly one MX record, exchange ".", preference 0. */
export const isNullMx = (records: readonly MxRecord[]): boolean =>
  records.length === 1 && records[0] !== undefined && isRoot(records[0].exchange) && records[0].priority === 0;

/** Number of records, 0 when the name or the type does not exist, null when unknown. */
function count<T>(answer: DnsAnswer<T>): number | null {
  if (answer.status === 'ok') return answer.records.length;
  return answer.status === 'error' ? null : 0;
}

/** Whether an A or AAAA answer says an address exists: true, false, or null when unknown. */
function hasAddress(a: DnsAnswer<string>, aaaa: DnsAnswer<string>): boolean | null {
  const counts = [count(a), count(aaaa)];
  if (counts.some((n) => n !== null && n > 0)) return true;
  return counts.includes(null) ? null : false;
}

export function mailRoutingFacts(mx: DnsAnswer<MxRecord>, a: DnsAnswer<string>, aaaa: DnsAnswer<string>): FactValues {
  const addresses = { a_record_count: count(a), aaaa_record_count: count(aaaa) };
  if (mx.status === 'error') {
    return { ...addresses, mx_record_status: 'not_checked', a_record_fallback: null, mx_record_count: null, has_null_mx: null, mx_hosts_are_ips: null };
  }
  if (mx.status === 'nxdomain') {
    return { ...addresses, mx_record_status: 'invalid', a_record_fallback: 'invalid', mx_record_count: 0, has_null_mx: false, mx_hosts_are_ips: false };
  }
  const records = mx.status === 'ok' ? mx.records : [];
  const hosts = records.filter((record) => !isRoot(record.exchange));
  const facts = {
    ...addresses,
    mx_record_count: hosts.length,
    has_null_mx: isNullMx(records),
    mx_hosts_are_ips: hosts.some((record) => isIP(record.exchange) !== 0),
  };
  if (hosts.length > 0) return { ...facts, mx_record_status: 'valid', a_record_fallback: 'not_needed' };
  // MX records that name only the root (a null MX) forbid the implicit MX: there is no fallback.
  if (records.length > 0) return { ...facts, mx_record_status: 'invalid', a_record_fallback: 'invalid' };
  const address = hasAddress(a, aaaa);
  return { ...facts, mx_record_status: 'invalid', a_record_fallback: address === null ? null : address ? 'valid' : 'invalid' };
}

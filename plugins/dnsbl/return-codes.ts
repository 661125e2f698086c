// What a DNS blocklist's A answer means, as the zones document it. Data, with its source; read by index.ts.
//
// Source: Spamhaus, "Available Zones" (return codes of each zone, the error codes, DQS),
// https://docs.spamhaus.com/datasets/docs/source/10-data-type-documentation/datasets/040-zones.html, read 2026-12-03.
// Any other answer in 127.0.0.0/8 is a listing of unknown category (another zone's code, or one added later);
// an answer outside 127.0.0.0/8 is no blocklist answer at all (a resolver that rewrites NXDOMAIN).

/** Categories of a domain zone's listing, most severe first: the order decides which one a domain is given. */
export const DOMAIN_CATEGORIES = ['malware', 'botnet', 'phish', 'spam', 'unclassified', 'abused_legit'] as const;
export type DomainCategory = (typeof DOMAIN_CATEGORIES)[number];

/** Categories of an IP zone's listing, most severe first. */
export const IP_CATEGORIES = ['botnet_controller', 'hijacked_network', 'exploited', 'spam_source', 'snowshoe_spam', 'unclassified', 'end_user_range'] as const;
export type IpCategory = (typeof IP_CATEGORIES)[number];

/** Categories that describe a legitimate domain or an ordinary address range: a listing, but not of a source of abuse. */
export const NOT_ABUSE: ReadonlySet<string> = new Set(['abused_legit', 'end_user_range']);

/** Spamhaus DBL (dbl.spamhaus.org, and its DQS zone `<key>.dbl.dq.spamhaus.net`). */
export const DOMAIN_CODES: Readonly<Record<string, DomainCategory>> = {
  '127.0.1.2': 'spam', // low-reputation domain
  '127.0.1.4': 'phish',
  '127.0.1.5': 'malware',
  '127.0.1.6': 'botnet', // botnet C&C domain
  '127.0.1.102': 'abused_legit', // abused legit spam
  '127.0.1.103': 'abused_legit', // abused spammed redirector domain
  '127.0.1.104': 'abused_legit', // abused legit phish
  '127.0.1.105': 'abused_legit', // abused legit malware
  '127.0.1.106': 'abused_legit', // abused legit botnet C&C
};

/** Spamhaus ZEN (zen.spamhaus.org: SBL, CSS, DROP, XBL, PBL, BCL) and its parts (sbl, xbl, pbl, sbl-xbl). */
export const IP_CODES: Readonly<Record<string, IpCategory>> = {
  '127.0.0.2': 'spam_source', // SBL
  '127.0.0.3': 'snowshoe_spam', // CSS (automated)
  '127.0.0.4': 'exploited', // XBL (127.0.0.5 to .7 currently unused)
  '127.0.0.9': 'hijacked_network', // DROP, always with SBL
  '127.0.0.10': 'end_user_range', // PBL, entry maintained by the ISP
  '127.0.0.11': 'end_user_range', // PBL, entry maintained by Spamhaus
  '127.0.0.30': 'botnet_controller', // BCL
};

/**
 * Answers that refuse the question rather than answer it: 127.255.255.252 a typing error in the zone's
 * name, .254 a query through a public or open resolver, .255 excessive queries, the others of 127.255.255.x
 * an invalid DQS key; 127.0.1.255 an IP asked of the DBL. The zone could not tell: unknown, never a listing.
 */
export function isRefusal(address: string): boolean {
  return address.startsWith('127.255.255.') || address === '127.0.1.255';
}

/** An address in 127.0.0.0/8, the only range a blocklist answers in. */
export function isBlocklistAnswer(address: string): boolean {
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(address);
}

// What a DNS blocklist's A answers mean, as the zones document it (data, with its source), and what the
// answers of several zones say together: shared by the dnsbl (domain) and dnsbl-ip plugins.
//
// Source: Spamhaus, "Available Zones" (return codes of each zone, the error codes, DQS),
// https://docs.spamhaus.com/datasets/docs/source/10-data-type-documentation/datasets/040-zones.html, read 2026-12-03.
import type { BlocklistAnswer } from '../src/engine/plugin.js';

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

/** What one zone said: a listing in a category, no listing, or nothing to go by. */
type ZoneVerdict = { zone: string; category: string } | 'not_listed' | 'unknown';

/** What the zones of one kind say together; null: nothing was asked (no zone, no name to ask about). */
export interface Listing {
  /** A zone lists it as a source of abuse; false when every zone answered and none did; null when one could not tell. */
  listed: boolean | null;
  /** The most severe category any zone gave, abuse or not. */
  category: string | null;
  /** The zone that gave it. */
  zone: string | null;
}

function verdictOf({ zone, answer }: BlocklistAnswer, codes: Readonly<Record<string, string>>, order: readonly string[]): ZoneVerdict {
  if (answer.status === 'nxdomain' || answer.status === 'nodata') return 'not_listed';
  if (answer.status !== 'ok' || answer.records.length === 0) return 'unknown';
  if (answer.records.some((address) => isRefusal(address) || !isBlocklistAnswer(address))) return 'unknown';
  const categories = answer.records.map((address) => codes[address] ?? 'unclassified');
  return { zone, category: mostSevere(categories, order) as string };
}

const mostSevere = (categories: readonly string[], order: readonly string[]): string | undefined => order.find((category) => categories.includes(category));

/** The zones' answers taken together: any abuse listing lists; otherwise one zone that could not tell leaves it unknown. */
export function listingOf(answers: readonly BlocklistAnswer[], codes: Readonly<Record<string, string>>, order: readonly string[]): Listing | null {
  if (answers.length === 0) return null;
  const verdicts = answers.map((answer) => verdictOf(answer, codes, order));
  const listings = verdicts.filter((verdict): verdict is { zone: string; category: string } => typeof verdict === 'object');
  const category = mostSevere(
    listings.map((listing) => listing.category),
    order,
  );
  const worst = listings.find((listing) => listing.category === category) ?? null;
  const found = { category: worst?.category ?? null, zone: worst?.zone ?? null };
  if (listings.some((listing) => !NOT_ABUSE.has(listing.category))) return { listed: true, ...found };
  return { listed: verdicts.includes('unknown') ? null : false, ...found };
}

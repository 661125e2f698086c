// The published forms of the lists' upstreams (data/SOURCE.md, "Upstreams"), each turned into the lines of
// a list file: CIDRs or addresses, checked by the parser the tables are built with (range-table.ts), so an
// update installs only what the plugin loads. A body that does not parse throws, naming its URL and where.
// CIDR lists are cleaned as the import cleaned the shipped ones (prefix-collapse.ts).
import { readDataFile, type UpstreamCompiler } from '../plugin-data.js';
import { collapsePrefixes } from './prefix-collapse.js';
import { parseRanges } from './range-table.js';

interface Body {
  url: string;
  text: string;
}

/** The lines of a list body, checked: blank lines and `#` comments left out; throws on a line that is no range. */
function rangeLines(body: Body, requireCidr: boolean): string[] {
  parseRanges(body.text, body.url);
  const lines = body.text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  const bare = lines.findIndex((line) => requireCidr !== line.includes('/'));
  if (bare >= 0) throw new Error(`${body.url}: "${lines[bare]}" is ${requireCidr ? 'not a CIDR' : 'not a bare address'}`);
  return lines;
}

/** A JSON body; throws naming the URL when it is not JSON (a truncated download). */
function json(body: Body): unknown {
  try {
    return JSON.parse(body.text);
  } catch (error) {
    throw new Error(`${body.url}: not JSON (${(error as Error).message})`);
  }
}

/** The string `key` of each object of `items`, each checked as a CIDR; items without the key are left out. */
function prefixes(body: Body, items: unknown, path: string, key: string): string[] {
  if (!Array.isArray(items)) throw new Error(`${body.url}: no ${path} array`);
  const found: string[] = [];
  items.forEach((item, i) => {
    const value = (item as Record<string, unknown> | null)?.[key];
    if (value === undefined) return;
    if (typeof value !== 'string' || !value.includes('/')) throw new Error(`${body.url}: ${path}[${i}].${key} is not a CIDR`);
    parseRanges(value, `${body.url}: ${path}[${i}].${key}`);
    found.push(value.trim());
  });
  return found;
}

/** Each string of `items`, checked as a CIDR. */
function cidrStrings(body: Body, items: unknown, path: string): string[] {
  if (!Array.isArray(items)) throw new Error(`${body.url}: no ${path} array`);
  return items.map((value, i) => {
    if (typeof value !== 'string' || !value.includes('/')) throw new Error(`${body.url}: ${path}[${i}] is not a CIDR`);
    parseRanges(value, `${body.url}: ${path}[${i}]`);
    return value.trim();
  });
}

const refuseEmpty = (list: string[], bodies: readonly Body[]): string[] => {
  if (list.length === 0) throw new Error(`${bodies.map((b) => b.url).join(', ')}: no entries`);
  return list;
};

/** Every entry of the bodies, in order, each once; a list that would be empty is refused. */
const combined = (entries: readonly string[], bodies: readonly Body[]): string[] => refuseEmpty([...new Set(entries)], bodies);

/** The CIDRs of the bodies, non-global prefixes left out and collapsed, as the import did; an empty list is refused. */
const cidrList = (entries: readonly string[], bodies: readonly Body[]): string[] => refuseEmpty(collapsePrefixes(entries), bodies);

/** The first field of each line of a geofeed (RFC 8805 CSV: `prefix,country,region,city,postal`, `#` comments). */
function geofeedPrefixes(body: Body): string[] {
  // Blank and comment lines kept as blank ones, so that a bad prefix is named by its line in the file.
  const first = body.text.split('\n').map((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return '';
    if (!line.includes(',')) throw new Error(`${body.url}:${i + 1}: "${line.slice(0, 80)}" is not a geofeed line (prefix,country,region,city,postal)`);
    return line.slice(0, line.indexOf(',')).trim();
  });
  return rangeLines({ url: body.url, text: first.join('\n') }, true);
}

// GitHub's meta keys that hold no ranges, and `actions`: Actions runners are Azure's hosts that anyone can rent
// (thousands of ranges), left out of the shipped list as they are here.
const GITHUB_META_SKIPPED = new Set(['ssh_keys', 'actions']);

export const UPSTREAM_FORMATS: Readonly<Record<string, UpstreamCompiler>> = {
  // check.torproject.org/torbulkexitlist: one IPv4 exit address per line. It publishes no IPv6 exits, so the
  // IPv6 addresses of the list loaded now (the import's, from Onionoo) are kept until a rebuild replaces them.
  'tor-bulk-exit-list': (bodies) => {
    const v4 = bodies.flatMap((body) => rangeLines(body, false));
    const v6 = v4.find((line) => line.includes(':'));
    if (v6) throw new Error(`${bodies[0]?.url}: "${v6}" is not an IPv4 address`);
    const loadedV6 = rangeLines({ url: 'tor-exits.txt', text: readDataFile('ip-intelligence', 'tor-exits.txt') }, false).filter((line) => line.includes(':'));
    return combined([...v4, ...loadedV6], bodies);
  },
  // ip-ranges.amazonaws.com/ip-ranges.json: {prefixes: [{ip_prefix, region, service, …}], ipv6_prefixes: [{ipv6_prefix, …}]}.
  'aws-ip-ranges-json': (bodies) =>
    cidrList(
      bodies.flatMap((body) => {
        const data = json(body) as { prefixes?: unknown; ipv6_prefixes?: unknown } | null;
        return [...prefixes(body, data?.prefixes, 'prefixes', 'ip_prefix'), ...prefixes(body, data?.ipv6_prefixes, 'ipv6_prefixes', 'ipv6_prefix')];
      }),
      bodies,
    ),
  // Google's form, which the crawlers and AI agents copied: {creationTime, prefixes: [{ipv4Prefix | ipv6Prefix, …}]}.
  // www.gstatic.com/ipranges/cloud.json (with service and scope), googlebot.json, bingbot.json, applebot.json,
  // OpenAI's gptbot.json, searchbot.json and chatgpt-user.json, Perplexity's and Mistral's files.
  'prefixes-json': (bodies) =>
    cidrList(
      bodies.flatMap((body) => {
        const data = json(body) as { prefixes?: unknown } | null;
        const v4 = prefixes(body, data?.prefixes, 'prefixes', 'ipv4Prefix');
        return [...v4, ...prefixes(body, data?.prefixes, 'prefixes', 'ipv6Prefix')];
      }),
      bodies,
    ),
  // docs.oracle.com/…/public_ip_ranges.json: {regions: [{region, cidrs: [{cidr, tags}]}]}.
  'oracle-public-ip-ranges-json': (bodies) =>
    cidrList(
      bodies.flatMap((body) => {
        const data = json(body) as { regions?: unknown } | null;
        if (!Array.isArray(data?.regions)) throw new Error(`${body.url}: no regions array`);
        return data.regions.flatMap((region: { cidrs?: unknown }, i: number) => prefixes(body, region?.cidrs, `regions[${i}].cidrs`, 'cidr'));
      }),
      bodies,
    ),
  // www.cloudflare.com/ips-v4 and /ips-v6: one CIDR per line (the last one without a line break).
  'cidr-lines': (bodies) =>
    cidrList(
      bodies.flatMap((body) => rangeLines(body, true)),
      bodies,
    ),
  // An RFC 8805 geofeed: DigitalOcean's google.csv, geoip.linode.com, and Apple's egress-ip-ranges.csv (the same
  // columns, no comments, about 10 MB of small prefixes that collapse to the shipped list's size).
  'geofeed-csv': (bodies) => cidrList(bodies.flatMap(geofeedPrefixes), bodies),
  // api.fastly.com/public-ip-list: {addresses: [CIDR], ipv6_addresses: [CIDR]}.
  'fastly-public-ip-list-json': (bodies) =>
    cidrList(
      bodies.flatMap((body) => {
        const data = json(body) as { addresses?: unknown; ipv6_addresses?: unknown } | null;
        return [...cidrStrings(body, data?.addresses, 'addresses'), ...cidrStrings(body, data?.ipv6_addresses, 'ipv6_addresses')];
      }),
      bodies,
    ),
  // geofeed.constant.com/?json, Vultr's geofeed as JSON: {updated, subnets: [{ip_prefix, alpha2code, region, city, postal_code}]}.
  'vultr-geofeed-json': (bodies) =>
    cidrList(
      bodies.flatMap((body) => prefixes(body, (json(body) as { subnets?: unknown } | null)?.subnets, 'subnets', 'ip_prefix')),
      bodies,
    ),
  // api.github.com/meta: {verifiable_password_authentication, ssh_key_fingerprints: {…}, ssh_keys: […], hooks: [CIDR],
  // web, api, git, github_enterprise_importer, packages, pages, importer, actions, actions_macos, codespaces,
  // copilot, …, domains: {…}}: every array of CIDRs but GITHUB_META_SKIPPED's. Its `web` array must be there: a
  // rate-limit answer ({message, documentation_url}) is not the list.
  'github-meta-json': (bodies) =>
    cidrList(
      bodies.flatMap((body) => {
        const data = json(body) as Record<string, unknown> | null;
        if (!Array.isArray(data?.web)) throw new Error(`${body.url}: no web array`);
        return Object.entries(data)
          .filter(([key, value]) => Array.isArray(value) && !GITHUB_META_SKIPPED.has(key))
          .flatMap(([key, value]) => cidrStrings(body, value, key));
      }),
      bodies,
    ),
};

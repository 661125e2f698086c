// The published forms of the lists' upstreams (data/SOURCE.md, "Upstreams"), each turned into the lines of
// a list file: CIDRs or addresses, checked by the parser the tables are built with (range-table.ts), so an
// update installs only what the plugin loads. A body that does not parse throws, naming its URL and where.
import { readDataFile, type UpstreamCompiler } from '../plugin-data.js';
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

const unique = (entries: readonly string[]): string[] => [...new Set(entries)];

/** Every entry of the bodies, in order, each once; a list that would be empty is refused. */
function combined(entries: readonly string[], bodies: readonly Body[]): string[] {
  const list = unique(entries);
  if (list.length === 0) throw new Error(`${bodies.map((b) => b.url).join(', ')}: no entries`);
  return list;
}

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
    combined(
      bodies.flatMap((body) => {
        const data = json(body) as { prefixes?: unknown; ipv6_prefixes?: unknown } | null;
        return [...prefixes(body, data?.prefixes, 'prefixes', 'ip_prefix'), ...prefixes(body, data?.ipv6_prefixes, 'ipv6_prefixes', 'ipv6_prefix')];
      }),
      bodies,
    ),
  // www.gstatic.com/ipranges/cloud.json: {prefixes: [{ipv4Prefix | ipv6Prefix, service, scope}]}.
  'google-cloud-json': (bodies) =>
    combined(
      bodies.flatMap((body) => {
        const data = json(body) as { prefixes?: unknown } | null;
        const v4 = prefixes(body, data?.prefixes, 'prefixes', 'ipv4Prefix');
        return [...v4, ...prefixes(body, data?.prefixes, 'prefixes', 'ipv6Prefix')];
      }),
      bodies,
    ),
  // docs.oracle.com/…/public_ip_ranges.json: {regions: [{region, cidrs: [{cidr, tags}]}]}.
  'oracle-public-ip-ranges-json': (bodies) =>
    combined(
      bodies.flatMap((body) => {
        const data = json(body) as { regions?: unknown } | null;
        if (!Array.isArray(data?.regions)) throw new Error(`${body.url}: no regions array`);
        return data.regions.flatMap((region: { cidrs?: unknown }, i: number) => prefixes(body, region?.cidrs, `regions[${i}].cidrs`, 'cidr'));
      }),
      bodies,
    ),
  // www.cloudflare.com/ips-v4 and /ips-v6: one CIDR per line (the last one without a line break).
  'cidr-lines': (bodies) =>
    combined(
      bodies.flatMap((body) => rangeLines(body, true)),
      bodies,
    ),
  // digitalocean.com/geo/google.csv, an RFC 8805 geofeed: `prefix,country,region,city,postal`, `#` comments.
  'geofeed-csv': (bodies) =>
    combined(
      bodies.flatMap((body) => {
        // Blank and comment lines kept as blank ones, so that a bad prefix is named by its line in the file.
        const first = body.text.split('\n').map((raw, i) => {
          const line = raw.trim();
          if (line === '' || line.startsWith('#')) return '';
          if (!line.includes(',')) throw new Error(`${body.url}:${i + 1}: "${line.slice(0, 80)}" is not a geofeed line (prefix,country,region,city,postal)`);
          return line.slice(0, line.indexOf(',')).trim();
        });
        return rangeLines({ url: body.url, text: first.join('\n') }, true);
      }),
      bodies,
    ),
};

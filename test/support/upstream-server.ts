// The data lists' upstreams as a local HTTP server (node:http on 127.0.0.1), laid out as the mirror that
// DATA_SOURCES_URL names (`/<host><path>`), each serving the format its upstream publishes, built from the
// shipped lists: `data update` tests swap one route's answer for a truncated file, an HTML error page, a 404,
// a server that never answers or a list that shrank, and see what each does to the installed list.
import { readFileSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { packageRoot } from '../../src/paths.js';

/** What one route answers: a status, a content type and a body, or `hang` (accepts and never answers). */
export type Answer = { status?: number; type?: string; body: string } | 'hang';

export interface UpstreamServer {
  /** The mirror's base URL (DATA_SOURCES_URL). */
  url: string;
  /** Route path (`/check.torproject.org/torbulkexitlist`) → its answer; change it between runs. */
  routes: Map<string, Answer>;
  /** The paths asked for, in order. */
  asked: string[];
  close(): Promise<void>;
}

export async function startUpstreams(routes: Map<string, Answer> = realUpstreams()): Promise<UpstreamServer> {
  const asked: string[] = [];
  const hanging = new Set<ServerResponse>();
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] as string;
    asked.push(path);
    const answer = routes.get(path);
    if (answer === 'hang') {
      hanging.add(res);
      return;
    }
    if (!answer) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    res.writeHead(answer.status ?? 200, { 'content-type': answer.type ?? 'text/plain; charset=utf-8' }).end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    routes,
    asked,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const shipped = (plugin: string, file: string) => readFileSync(join(packageRoot, 'plugins', plugin, 'data', file), 'utf8');
const entries = (text: string) =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
const split = (file: string) => {
  const lines = entries(shipped('ip-intelligence', file));
  return { v4: lines.filter((l) => !l.includes(':')), v6: lines.filter((l) => l.includes(':')) };
};

/** A Tor exit address no shipped list holds: an update that serves it makes it a Tor exit. */
export const NEW_TOR_EXIT = '203.0.113.77';

/** Route paths of the upstreams (as the mirror lays them out). */
export const ROUTES = {
  tor: '/check.torproject.org/torbulkexitlist',
  aws: '/ip-ranges.amazonaws.com/ip-ranges.json',
  google: '/www.gstatic.com/ipranges/cloud.json',
  cloudflareV4: '/www.cloudflare.com/ips-v4',
  cloudflareV6: '/www.cloudflare.com/ips-v6',
  oracle: '/docs.oracle.com/en-us/iaas/tools/public_ip_ranges.json',
  digitalocean: '/digitalocean.com/geo/google.csv',
  reviewed: '/raw.githubusercontent.com/disposable-email-domains/disposable-email-domains/main/disposable_email_blocklist.conf',
  mailchecker: '/raw.githubusercontent.com/FGRibreau/mailchecker/master/list.txt',
  tompec: '/raw.githubusercontent.com/tompec/disposable-email-domains/main/index.json',
} as const;

/** Tor's bulk exit list: the shipped IPv4 exits and NEW_TOR_EXIT, one per line. */
export function torBulkExitList(v4 = split('tor-exits.txt').v4): string {
  return `${[...v4, NEW_TOR_EXIT].join('\n')}\n`;
}

/** AWS's ip-ranges.json from the shipped ranges, in its published shape. */
export function awsIpRanges({ v4, v6 } = split('providers/aws.txt')): string {
  return JSON.stringify(
    {
      syncToken: '1764720000',
      createDate: '2026-12-03-00-00-00',
      prefixes: v4.map((ip_prefix) => ({ ip_prefix, region: 'us-east-1', service: 'AMAZON', network_border_group: 'us-east-1' })),
      ipv6_prefixes: v6.map((ipv6_prefix) => ({ ipv6_prefix, region: 'us-east-1', service: 'AMAZON', network_border_group: 'us-east-1' })),
    },
    null,
    2,
  );
}

/** Google Cloud's cloud.json from the shipped ranges. */
export function googleCloudJson({ v4, v6 } = split('providers/google_cloud.txt')): string {
  return JSON.stringify(
    {
      syncToken: '1764720000000',
      creationTime: '2026-12-03T00:00:00.000000',
      prefixes: [
        ...v4.map((ipv4Prefix) => ({ ipv4Prefix, service: 'Google Cloud', scope: 'us-central1' })),
        ...v6.map((ipv6Prefix) => ({ ipv6Prefix, service: 'Google Cloud', scope: 'us-central1' })),
      ],
    },
    null,
    2,
  );
}

/** Oracle's public_ip_ranges.json from the shipped ranges. */
export function oracleRanges({ v4 } = split('providers/oracle_cloud.txt')): string {
  const half = Math.ceil(v4.length / 2);
  return JSON.stringify({
    last_updated_timestamp: '2026-12-02T21:10:34.442018',
    regions: [
      { region: 'us-phoenix-1', cidrs: v4.slice(0, half).map((cidr) => ({ cidr, tags: ['OCI'] })) },
      { region: 'eu-frankfurt-1', cidrs: v4.slice(half).map((cidr) => ({ cidr, tags: ['OCI', 'OSN'] })) },
    ],
  });
}

/** DigitalOcean's geofeed (RFC 8805 CSV) from the shipped ranges. */
export function digitaloceanGeofeed({ v4, v6 } = split('providers/digitalocean.txt')): string {
  return `${[...v4, ...v6].map((prefix) => `${prefix},US,US-NY,New York,10001`).join('\n')}\n`;
}

/** The shipped domains.txt as mailchecker's list.txt (one domain per line). */
export function mailcheckerList(): string {
  return `${entries(shipped('disposable', 'domains.txt')).join('\n')}\n`;
}

/** The shipped domains.txt as tompec's index.json (a JSON array, two-space indented as published). */
export function tompecIndex(): string {
  return `${JSON.stringify(entries(shipped('disposable', 'domains.txt')), null, 2)}\n`;
}

/** Every upstream in its real format, each as large as the shipped list (no shrink). */
export function realUpstreams(): Map<string, Answer> {
  const cloudflare = split('providers/cloudflare.txt');
  return new Map<string, Answer>([
    [ROUTES.tor, { body: torBulkExitList() }],
    [ROUTES.aws, { type: 'application/json', body: awsIpRanges() }],
    [ROUTES.google, { type: 'application/json', body: googleCloudJson() }],
    // Cloudflare's files end without a line break.
    [ROUTES.cloudflareV4, { body: cloudflare.v4.join('\n') }],
    [ROUTES.cloudflareV6, { body: cloudflare.v6.join('\n') }],
    [ROUTES.oracle, { type: 'application/json', body: oracleRanges() }],
    [ROUTES.digitalocean, { type: 'text/csv', body: digitaloceanGeofeed() }],
    [ROUTES.reviewed, { body: 'throwaway-fresh-7781.com\nmailinator.com\n' }],
    [ROUTES.mailchecker, { body: mailcheckerList() }],
    [ROUTES.tompec, { type: 'application/json', body: tompecIndex() }],
  ]);
}

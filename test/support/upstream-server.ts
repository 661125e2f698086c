// The data lists' upstreams as a local HTTP server (node:http on 127.0.0.1), laid out as the mirror that
// DATA_SOURCES_URL names (`/<host><path>`), each serving the format its upstream publishes, built from the
// shipped lists: `data update` tests swap one route's answer for a truncated file, an HTML error page, a 404,
// a server that never answers or a list that shrank, and see what each does to the installed list.
import { readFileSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import ipaddr from 'ipaddr.js';
import { packageRoot } from '../../src/paths.js';

/**
 * What one route answers: a status, a content type and a body, or `hang` (accepts and never answers). With
 * `resets`, its first that many requests have their connection closed unanswered (as a server that closed a
 * kept-alive connection the client reused).
 */
export type Answer = { status?: number; type?: string; body: string; resets?: number } | 'hang';

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
    if ((answer.resets ?? 0) > 0) {
      answer.resets = (answer.resets as number) - 1;
      req.socket.destroy();
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
  linode: '/geoip.linode.com/',
  vultr: '/geofeed.constant.com/',
  fastly: '/api.fastly.com/public-ip-list',
  googlebot: '/developers.google.com/static/search/apis/ipranges/googlebot.json',
  bingbot: '/www.bing.com/toolbox/bingbot.json',
  applebot: '/search.developer.apple.com/applebot.json',
  gptbot: '/openai.com/gptbot.json',
  searchbot: '/openai.com/searchbot.json',
  chatgptUser: '/openai.com/chatgpt-user.json',
  perplexityBot: '/www.perplexity.ai/perplexitybot.json',
  perplexityUser: '/www.perplexity.ai/perplexity-user.json',
  mistral: '/mistral.ai/mistralai-user-ips.json',
  appleRelay: '/mask-api.icloud.com/egress-ip-ranges.csv',
  github: '/api.github.com/meta',
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

/** Linode's geofeed (geoip.linode.com): a comment header, then RFC 8805 rows. */
export function linodeGeofeed({ v4, v6 } = split('providers/linode.txt')): string {
  const rows = [...v4, ...v6].map((prefix) => `${prefix},US,US-NJ,Cedar Knolls,`);
  return `# Linode geofeed\n# ip_prefix,country_code,region,city,postal_code\n${rows.join('\n')}\n`;
}

/** Documentation, reserved and 6to4 blocks that Vultr's geofeed lists as its own. */
export const VULTR_SPECIAL = ['192.0.2.0/24', '198.51.100.0/24', '203.0.113.0/24', '2001:2::/48', '2001:10::/28', '2001:db8::/32', '2002::/16'];

/** Vultr's geofeed as JSON (geofeed.constant.com/?json) from the shipped ranges and the special blocks it lists. */
export function vultrGeofeedJson({ v4, v6 } = split('providers/vultr.txt')): string {
  const subnets = [...v4, ...v6, ...VULTR_SPECIAL].map((ip_prefix) => ({
    ip_prefix,
    alpha2code: 'US',
    region: 'US-NJ',
    city: 'Piscataway',
    postal_code: '08854',
  }));
  return JSON.stringify({ description: 'Vultr geofeed', updated: '2026-12-02T05:00:02+00:00', subnets });
}

/** Fastly's public-ip-list. */
export function fastlyPublicIpList({ v4, v6 } = split('providers/fastly.txt')): string {
  return JSON.stringify({ addresses: v4, ipv6_addresses: v6 });
}

/** A crawler's or agent's file in Google's form (googlebot.json, bingbot.json, gptbot.json, …). */
export function prefixesJson(lines: readonly string[]): string {
  const prefixes = lines.map((prefix) => (prefix.includes(':') ? { ipv6Prefix: prefix } : { ipv4Prefix: prefix }));
  return JSON.stringify({ creationTime: '2026-12-02T15:46:04.000000', prefixes }, null, 2);
}

/** `lines` dealt into `n` files (a list its publisher splits by agent: OpenAI's three, Perplexity's two). */
const dealt = (lines: readonly string[], n: number): string[][] => Array.from({ length: n }, (_, k) => lines.filter((_, i) => i % n === k));

/** Each CIDR as its two halves (a /32 or /128 as itself): a publisher's small pieces of the collapsed list. */
export function halves(lines: readonly string[]): string[] {
  return lines.flatMap((line) => {
    const [address = '', bits = ''] = line.split('/');
    const width = address.includes(':') ? 128 : 32;
    const n = Number(bits);
    if (n === width) return [line];
    if (width === 32) {
      const first = address.split('.').reduce((a, o) => a * 256 + Number(o), 0) + 2 ** (31 - n);
      const second = [24, 16, 8, 0].map((shift) => Math.floor(first / 2 ** shift) % 256).join('.');
      return [`${address}/${n + 1}`, `${second}/${n + 1}`];
    }
    const value = ipaddr.IPv6.parse(address).parts.reduce((a, part) => (a << 16n) | BigInt(part), 0n) + (1n << BigInt(127 - n));
    const words = Array.from({ length: 8 }, (_, i) => Number((value >> BigInt(112 - 16 * i)) & 0xffffn));
    return [`${address}/${n + 1}`, `${new ipaddr.IPv6(words).toRFC5952String()}/${n + 1}`];
  });
}

/** Apple's egress-ip-ranges.csv (no header, `prefix,country,region,city,`), published in smaller pieces than the shipped list. */
export function appleRelayCsv(lines = entries(shipped('ip-intelligence', 'providers/apple_private_relay.txt'))): string {
  return `${halves(lines)
    .map((prefix) => `${prefix},GB,GB-EN,London,`)
    .join('\n')}\n`;
}

/** An Azure range (an Actions runner's) that GitHub's meta lists under `actions` only. */
export const GITHUB_ACTIONS_ONLY = '4.175.0.0/16';

/** api.github.com/meta from the shipped ranges: dealt into its keys, with the keys that hold no ranges and `actions`. */
export function githubMeta(lines = entries(shipped('ip-intelligence', 'providers/github.txt')), extra: Record<string, string[]> = {}): string {
  const keys = ['hooks', 'web', 'api', 'git', 'github_enterprise_importer', 'packages', 'pages', 'importer', 'actions_macos', 'codespaces', 'copilot'];
  const arrays = Object.fromEntries(keys.map((key, k) => [key, [...lines.filter((_, i) => i % keys.length === k), ...(extra[key] ?? [])]]));
  // web, api and git share ranges in the real file.
  arrays.api = [...(arrays.api ?? []), ...(arrays.web ?? [])];
  return JSON.stringify({
    verifiable_password_authentication: false,
    ssh_key_fingerprints: { SHA256_ED25519: '+DiY3wvvV6TuJJhbpZisF/zLDA0zPMSvHdkr4UvCOqU' },
    ssh_keys: ['ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl'],
    ...arrays,
    actions: [GITHUB_ACTIONS_ONLY, '2603:1030::/32'],
    domains: { website: ['*.github.com', 'github.com'], copilot: ['*.githubcopilot.com'] },
  });
}

/** The shipped domains.txt as mailchecker's list.txt (one domain per line). */
export function mailcheckerList(): string {
  return `${entries(shipped('disposable', 'domains.txt')).join('\n')}\n`;
}

/** The shipped domains.txt as tompec's index.json (a JSON array, two-space indented as published). */
export function tompecIndex(): string {
  return `${JSON.stringify(entries(shipped('disposable', 'domains.txt')), null, 2)}\n`;
}

/** Every upstream in its real format, each as large as the shipped list (no shrink); fresh answers each call. */
export function realUpstreams(): Map<string, Answer> {
  // Built once per process: a set cost about 0.1 s of CPU (most of it halving Apple's relay ranges), and the data-update
  // tests ask for a fresh set before each test. Each call copies the answers, whose `resets` a test may count down.
  built ??= buildUpstreams();
  return new Map([...built].map(([path, answer]) => [path, { ...answer }]));
}

let built: Map<string, Exclude<Answer, 'hang'>> | undefined;

function buildUpstreams(): Map<string, Exclude<Answer, 'hang'>> {
  const cloudflare = split('providers/cloudflare.txt');
  const list = (file: string) => entries(shipped('ip-intelligence', `providers/${file}`));
  const [gptbot = [], searchbot = [], chatgptUser = []] = dealt(list('openai.txt'), 3);
  const [perplexityBot = [], perplexityUser = []] = dealt(list('perplexity.txt'), 2);
  const json = (body: string): Exclude<Answer, 'hang'> => ({ type: 'application/json', body });
  return new Map<string, Exclude<Answer, 'hang'>>([
    [ROUTES.tor, { body: torBulkExitList() }],
    [ROUTES.aws, { type: 'application/json', body: awsIpRanges() }],
    [ROUTES.google, { type: 'application/json', body: googleCloudJson() }],
    // Cloudflare's files end without a line break.
    [ROUTES.cloudflareV4, { body: cloudflare.v4.join('\n') }],
    [ROUTES.cloudflareV6, { body: cloudflare.v6.join('\n') }],
    [ROUTES.oracle, { type: 'application/json', body: oracleRanges() }],
    [ROUTES.digitalocean, { type: 'text/csv', body: digitaloceanGeofeed() }],
    [ROUTES.linode, { body: linodeGeofeed() }],
    [ROUTES.vultr, json(vultrGeofeedJson())],
    [ROUTES.fastly, json(fastlyPublicIpList())],
    [ROUTES.googlebot, json(prefixesJson(list('googlebot.txt')))],
    [ROUTES.bingbot, json(prefixesJson(list('bingbot.txt')))],
    [ROUTES.applebot, json(prefixesJson(list('applebot.txt')))],
    [ROUTES.gptbot, json(prefixesJson(gptbot))],
    [ROUTES.searchbot, json(prefixesJson(searchbot))],
    [ROUTES.chatgptUser, json(prefixesJson(chatgptUser))],
    [ROUTES.perplexityBot, json(prefixesJson(perplexityBot))],
    [ROUTES.perplexityUser, json(prefixesJson(perplexityUser))],
    [ROUTES.mistral, json(prefixesJson(list('mistral.txt')))],
    [ROUTES.appleRelay, { type: 'text/csv', body: appleRelayCsv() }],
    [ROUTES.github, json(githubMeta())],
    [ROUTES.reviewed, { body: 'throwaway-fresh-7781.com\nmailinator.com\n' }],
    [ROUTES.mailchecker, { body: mailcheckerList() }],
    [ROUTES.tompec, { type: 'application/json', body: tompecIndex() }],
  ]);
}

// What `serve` asks the configured DNS blocklists once at start (RFC 5782, section 5): every zone must list
// its test entry (an IP zone 127.0.0.2; a domain zone the name `test`, or Spamhaus's documented
// `dbltest.com`) and must not list 127.0.0.1 or `invalid`. A zone that refuses (127.255.255.x: a public
// resolver, no or a wrong DQS key), does not list its test entry (a misspelt zone, a resolver that drops
// the answers), lists everything (a resolver that rewrites NXDOMAIN) or cannot be reached is named in one
// warning that says what to do. Requests never wait on the probe: until a zone answers well its facts are
// unknown, as they would be anyway.

import type { BlocklistAnswer, BlocklistLookup } from '../src/engine/plugin.js';
import { isBlocklistAnswer, isRefusal } from './blocklist-answers.js';

export type ZoneHealth = 'ok' | 'refused' | 'test_not_listed' | 'lists_everything' | 'unreachable';

export interface ZoneProbe {
  zone: string;
  kind: 'domain' | 'ip';
  health: ZoneHealth;
  /** What was seen and what to do (empty when ok). */
  advice: string;
}

const TEST = { domain: ['test', 'dbltest.com'], ip: ['127.0.0.2'] } as const;
const NEVER_LISTED = { domain: 'invalid', ip: '127.0.0.1' } as const;

type Seen = 'listed' | 'refused' | 'not_listed' | 'failed';

function seen({ answer }: BlocklistAnswer): Seen {
  if (answer.status === 'nxdomain' || answer.status === 'nodata') return 'not_listed';
  if (answer.status !== 'ok' || answer.records.length === 0) return 'failed';
  if (answer.records.some(isRefusal)) return 'refused';
  return answer.records.every(isBlocklistAnswer) ? 'listed' : 'failed';
}

/** Asks each zone of `lookup` about its test entries; one probe per zone, in the order configured. */
export async function probeBlocklists(lookup: BlocklistLookup): Promise<ZoneProbe[]> {
  const probes: ZoneProbe[] = [];
  for (const kind of ['domain', 'ip'] as const) {
    const ask = (name: string) => (kind === 'domain' ? lookup.domain(name) : lookup.ip(name));
    const [tests, never] = await Promise.all([Promise.all(TEST[kind].map(ask)), ask(NEVER_LISTED[kind])]);
    never.forEach((answer, index) => {
      const testSeen = tests.map((answers) => seen(answers[index] as BlocklistAnswer));
      probes.push({ zone: answer.zone, kind, ...healthOf(testSeen, seen(answer), kind) });
    });
  }
  return probes;
}

function healthOf(tests: Seen[], never: Seen, kind: 'domain' | 'ip'): { health: ZoneHealth; advice: string } {
  const test = TEST[kind].join(' or ');
  if (tests.includes('refused') || never === 'refused')
    return {
      health: 'refused',
      advice:
        'the zone refuses the queries (127.255.255.x): public zones refuse queries sent through public or open resolvers and without a registered key; use a DQS key zone or your own recursive resolver (DNS_SERVERS)',
    };
  if (never === 'listed')
    return {
      health: 'lists_everything',
      advice: `the zone lists ${NEVER_LISTED[kind]}, which no zone lists: a resolver rewrites the answers; set DNS_SERVERS to one that does not`,
    };
  if (tests.includes('listed')) return { health: 'ok', advice: '' };
  if (tests.every((s) => s === 'not_listed'))
    return { health: 'test_not_listed', advice: `the zone does not list its test entry (${test}): check the zone's name` };
  return {
    health: 'unreachable',
    advice: 'the zone did not answer (timeout or failure): its facts stay unknown until it does; check DNS_SERVERS and the network',
  };
}

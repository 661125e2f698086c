// The world a policy test declares, Cerbos style: earlier validations (velocity history) and outcomes
// (labels, for the reputation facts), kept in a real in-memory SQLite store, and what the network answers
// per domain. A domain the test does not list answers
// as an unreachable network would: unknown, never "no".
import type { BlocklistAnswer, DnsAnswer, FingerprintInput, LookupResult, MxRecord, NetworkAccess, ReputationReader } from '../engine/plugin.js';
import type { BlocklistListing, DomainAnswers, HistoryEntry, LabelEntry, PolicyTest, TestBlocklists } from '../policy/types.js';
import { openDatabase, type Store } from '../store/database.js';
import { canonicalIp } from '../store/events.js';
import { isLabel } from '../store/labels.js';

const MINUTE_MS = 60_000;
const NOT_LISTED = { status: 'error', reason: "not in the test's network answers" } as const;

const DAY_MS = 86_400_000;

/** The zone a policy test's `blocklists:` answer as. */
export const TEST_BLOCKLIST_ZONE = 'policy-test.zone';

/** One zone answering from a test's `blocklists:` table; without one, no zone is configured (the DNSBL facts unknown). */
function blocklistsFrom(table: TestBlocklists | undefined): NetworkAccess['blocklists'] {
  if (!table) return { domain: async () => [], ip: async () => [] };
  const answer = (listing: BlocklistListing | undefined): BlocklistAnswer[] => {
    if (listing === undefined) return [{ zone: TEST_BLOCKLIST_ZONE, answer: { status: 'nxdomain' } }];
    if (listing === 'error') return [{ zone: TEST_BLOCKLIST_ZONE, answer: { status: 'error', reason: 'servfail' } }];
    return [{ zone: TEST_BLOCKLIST_ZONE, answer: { status: 'ok', records: Array.isArray(listing) ? listing : [listing] } }];
  };
  const ips = new Map(Object.entries(table.ips ?? {}).map(([ip, listing]) => [canonicalIp(ip) ?? ip, listing]));
  return {
    domain: async (domain) => answer(table.domains?.[domain.toLowerCase()]),
    ip: async (address) => answer(ips.get(canonicalIp(address) ?? address)),
  };
}

/**
 * A NetworkAccess answering from a test's `network:` table and, for the DNS blocklists, its `blocklists:`
 * table; `now` anchors `registered_days_ago`.
 */
export function networkFromAnswers(answers: Readonly<Record<string, DomainAnswers>>, now: () => number = Date.now, blocklists?: TestBlocklists): NetworkAccess {
  const entry = (domain: string) => answers[domain.toLowerCase()];
  const addresses = (domain: string, kind: 'a' | 'aaaa'): DnsAnswer<string> => records(entry(domain), kind, (address) => address);
  return {
    enabled: true,
    dns: {
      mx: async (domain) => records(entry(domain), 'mx', mxRecord),
      a: async (domain) => addresses(domain, 'a'),
      aaaa: async (domain) => addresses(domain, 'aaaa'),
    },
    registration: { registered: async (domain) => registered(entry(domain), now()) },
    website: { hasWebsite: async (domain) => website(entry(domain)) },
    blocklists: blocklistsFrom(blocklists),
  };
}

function records<T>(found: DomainAnswers | undefined, kind: 'mx' | 'a' | 'aaaa', make: (text: string, index: number) => T): DnsAnswer<T> {
  if (found === undefined || found === 'error') return found === undefined ? NOT_LISTED : { status: 'error', reason: 'servfail' };
  if (found === 'nxdomain') return { status: 'nxdomain' };
  const listed = found[kind];
  if (listed === 'error') return { status: 'error', reason: 'servfail' };
  if (listed === undefined || listed.length === 0) return { status: 'nodata' };
  return { status: 'ok', records: listed.map(make) };
}

/** MX hosts in preference order; "." is the null MX (RFC 7505). */
function mxRecord(host: string, index: number): MxRecord {
  return host === '.' ? { exchange: '', priority: 0 } : { exchange: host, priority: (index + 1) * 10 };
}

function registered(found: DomainAnswers | undefined, now: number): LookupResult<number> {
  if (typeof found === 'object' && found.registered_days_ago !== undefined) return { status: 'ok', value: now - found.registered_days_ago * DAY_MS };
  const date = typeof found === 'object' && found.registered !== undefined ? Date.parse(found.registered) : Number.NaN;
  return Number.isFinite(date) ? { status: 'ok', value: date } : { status: 'unknown', reason: 'no registration date in the test' };
}

function website(found: DomainAnswers | undefined): LookupResult<boolean> {
  return typeof found === 'object' && found.website !== undefined ? { status: 'ok', value: found.website } : { status: 'unknown', reason: 'not in the test' };
}

/** Velocity history for policy tests: one in-memory store, a project of its own per test. */
export class TestHistory {
  private store: Promise<Store> | null = null;

  /** The project id under which `entries` were recorded, `now` being the test's request time. */
  async project(testIndex: number, entries: readonly HistoryEntry[], now: number): Promise<string> {
    const projectId = `policy-test-${testIndex}`;
    const store = await this.open();
    await Promise.all(
      entries.map((entry) => {
        // Lower-cased as the normalize plugin's email_lower is: what per-IP velocity tells addresses apart by.
        const lower = entry.email_address.toLowerCase().normalize('NFC');
        return store.events.record({
          projectId,
          endpoint: 'verify',
          email: entry.email_address,
          emailLower: lower,
          baseEmail: lower,
          ipv4: entry.ipv4_address ?? null,
          ipv6: entry.ipv6_address ?? null,
          device: entry.device ?? null,
          fingerprintToken: entry.fingerprint_token ?? null,
          action: 'allow',
          createdAt: now - Math.round((entry.minutes_ago ?? 0) * MINUTE_MS),
        });
      }),
    );
    return projectId;
  }

  /**
   * The reputation reader of test `testIndex` after `entries` were labelled, each as a decision of its own
   * (`forms`: the base address and domain the address is stored under), `days_ago` before `now`.
   */
  async labelled(
    testIndex: number,
    entries: readonly LabelEntry[],
    forms: (email: string) => Promise<{ base: string; domain: string | null }>,
    now: number,
  ): Promise<ReputationReader> {
    const store = await this.open();
    // Labels belong to a project row (events do not): one per test, made for it.
    const projectId = (await store.projects.create({ name: `policy-test-${testIndex}-labels`, policy: 'default' }, now)).id;
    for (const [i, entry] of entries.entries()) {
      if (!isLabel(entry.label)) throw new Error(`labels[${i}].label: ${entry.label} is not a label`);
      const { base, domain } = await forms(entry.email_address);
      const at = now - Math.round((entry.days_ago ?? 0) * DAY_MS);
      await store.labels.record(
        {
          projectId,
          subject: `policy-test:${testIndex}:${i}`,
          eventId: null,
          decisionId: null,
          email: entry.email_address,
          baseEmail: base,
          domain,
          ipv4: entry.ipv4_address ?? null,
          ipv6: entry.ipv6_address ?? null,
          device: entry.device ?? null,
          label: entry.label,
          note: null,
          source: 'import',
          labelledAt: at,
          shared: false,
        },
        now,
      );
    }
    return store.labels.reputationReader([projectId]);
  }

  async reader(projectId: string) {
    return (await this.open()).events.velocityReader(projectId);
  }

  async close(): Promise<void> {
    if (this.store) await (await this.store).close();
    this.store = null;
  }

  private open(): Promise<Store> {
    this.store ??= openDatabase('sqlite::memory:').then(async (store) => {
      await store.migrate();
      return store;
    });
    return this.store;
  }
}

/** A policy test's fingerprint as the service would hand it to plugins; null when the test gives none. */
export function fingerprintOfTest(input: PolicyTest['input'], at: number): FingerprintInput | null {
  const given = input.fingerprint;
  if (!given) return null;
  return {
    token: given.token ?? 'policy-test-token',
    issuedAt: at - Math.round((given.issued_minutes_ago ?? 0) * MINUTE_MS),
    ipv4: given.ipv4_address ?? input.ipv4_address ?? null,
    ipv6: given.ipv6_address ?? input.ipv6_address ?? null,
    timezone: given.timezone ?? null,
    automation: given.automation ?? [],
    languages: given.languages ?? [],
  };
}

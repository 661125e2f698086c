// The plugin contract: types only. Everything else stands on this file; it imports only the vocabulary.
import type { CodeGroup, Operator } from '../vocabulary.js';

/** JSON type of a fact's value (null is always allowed: it means "unknown"). */
export type FactType = 'boolean' | 'integer' | 'number' | 'string' | 'array' | 'object';

/**
 * Where a fact appears in the verify response, besides being usable by rules. A fact appears only when
 * one of its plugin's checks is enabled by the project's policy (the plugin then runs for the response):
 * - `analyzed_data`: under analyzed_data when show_results is set, scalars rendered as strings; left out
 *   when its value is null (unknown, or not applicable to the request: no IP, no domain, an invalid address);
 * - `flag`: a top-level field, always present: true or false when the fact is, null when it is unknown ("not
 *   checked": no IP, no domain, an invalid address);
 * - `result`: a top-level field when show_results is set and the value is not null (punycode_email,
 *   corrected_email);
 * - `field`: a top-level field whatever show_results says, left out when null (risk_score, risk_level,
 *   risk_score_breakdown: the interface returns them whenever risk scoring is enabled).
 * A fact may appear in several places (risk_score is a field and under analyzed_data).
 */
export type FactExposure = 'analyzed_data' | 'flag' | 'result' | 'field';

export interface FactSpec {
  type: FactType;
  description: string;
  /** For string facts with a closed value set. */
  values?: readonly string[];
  /** Values that mean "could not tell" (e.g. `not_checked`): like null, they make a check's `on_unknown` apply. */
  unknownValues?: readonly string[];
  expose?: FactExposure | readonly FactExposure[];
  /**
   * The check of the same plugin whose options the fact is computed from: without that check enabled the fact
   * is always null, and the policy compiler warns a rule that reads it.
   */
  requiresCheck?: string;
}

/**
 * A code of docs/facts.md's tables: an error code is listed under its group, a warning code with its meaning.
 * Which list a fired check's code goes to is its policy's mode, not this.
 */
export interface CodeSpec {
  error?: CodeGroup;
  /** What the warning means, in a phrase. */
  warning?: string;
}

export interface FactTest {
  fact: string;
  operator: Operator;
  value: unknown;
}

/** A condition over facts. The policy compiler turns it into the rule engine's form. */
export type Condition = FactTest | { all: Condition[] } | { any: Condition[] } | { not: Condition };

export type CheckOptions = Readonly<Record<string, unknown>>;

/** A named check a policy can enable; its name is one of its plugin's `steps`. */
export interface CheckSpec {
  description: string;
  /** When the check fires (the trait is present / the check failed). Options are already validated. */
  when: Condition | ((options: CheckOptions) => Condition);
  /**
   * What it reports, under `errors` in hard mode and `warnings` in soft mode: one of its plugin's `codes`. A
   * check without one reports through its flag and its action only.
   */
  code?: string;
  /** Its value in checked_types (snake_case), when it has one; several checks may share it. */
  checkedType?: string;
  /** JSON Schema of the check's options (validated once, when a policy compiles). */
  options?: Record<string, unknown>;
  /** Defaults merged under the policy's options. */
  defaults?: CheckOptions;
}

/**
 * What the engine knows about the request. Request data reaches plugins only here: rules read facts,
 * never the request, so a caller cannot shadow a fact by sending a field of the same name.
 */
export interface RequestInput {
  readonly email: string;
  readonly ipv4: string | null;
  readonly ipv6: string | null;
  readonly softCheck: boolean;
  readonly projectId: string;
  /** Device hash of the request's fingerprint (verify's and intelligence's `fingerprint`); null without one. */
  readonly device: string | null;
  /** What the request's fingerprint token says of the browser that obtained it; null or absent without one. */
  readonly fingerprint?: FingerprintInput | null;
}

/**
 * A fingerprint token as the service opened it: when and from where it was obtained, and what POST
 * /v1/fingerprint observed of the browser then (src/service/device-traits.ts names the traits).
 */
export interface FingerprintInput {
  /** Identifies the token (a hash of it, not the token): its uses are found by it. */
  readonly token: string;
  /** When it was issued, in milliseconds since the epoch. */
  readonly issuedAt: number;
  /** The addresses that obtained it. */
  readonly ipv4: string | null;
  readonly ipv6: string | null;
  /** The browser's IANA time zone as its script reported it; null when it sent none. */
  readonly timezone: string | null;
  /** Traits that suggest automation: `webdriver`, `headless_user_agent`, `platform_mismatch`. */
  readonly automation: readonly string[];
  /** Traits of the browser's languages: `no_languages`, `languages_mismatch`. */
  readonly languages: readonly string[];
}

export interface VelocityEntry {
  email: string;
  /** Milliseconds since the epoch. */
  at: number;
}

/** The history of one subject (an IP, a device): what velocity reads. */
export interface Velocity {
  /** Distinct addresses seen from the subject, each with the time it was last seen, newest first, at most `limit`. */
  emails: VelocityEntry[];
  /** Number of distinct addresses seen from the subject. */
  distinctEmails: number;
  /** Number of validations from the subject. */
  total: number;
  /**
   * Number of validations from the subject since each given time (ms), in the order asked. Minute-granular:
   * the whole minute holding the time counts (never fewer than the exact count, at most one minute more).
   */
  since: number[];
}

export type IpVelocity = Velocity;

/**
 * What a device was seen with: `device_ip` the IPs it came from, `device_network` their networks (IPv4 /24,
 * IPv6 /64, as src/ip-prefix.ts spells them).
 */
export type SpreadKind = 'device_ip' | 'device_network';

/** One earlier validation that presented a fingerprint token. */
export interface TokenUse {
  /** The address, lower-cased. */
  email: string;
  ipv4: string | null;
  ipv6: string | null;
  /** Milliseconds since the epoch. */
  at: number;
}

export interface Spread {
  /** Distinct values seen, each with the time it was last seen, newest first, at most `limit`. */
  seen: Array<{ value: string; at: number }>;
  /** Number of distinct values. */
  distinct: number;
  /** Number of validations counted. */
  total: number;
}

/**
 * Read access to this project's history; the store implements it, and bounds it: each read costs a bounded
 * amount however long the history (windows up to 3 hours are exact to the minute, `limit` addresses at
 * most), and a read the database does not answer within the store's read timeout (2 s) rejects, so a
 * plugin need not time it.
 */
export interface VelocityReader {
  byIp(query: { ipv4: string | null; ipv6: string | null; since: number[]; limit: number }): Promise<Velocity>;
  byDevice(query: { device: string; since: number[]; limit: number }): Promise<Velocity>;
  /** A device's spread (no windows: each value holds when it was last seen). */
  spread(query: { kind: SpreadKind; subject: string; limit: number }): Promise<Spread>;
  /** The validations that presented fingerprint token `token` (FingerprintInput.token), newest first, at most `limit`. */
  tokenUses(query: { token: string; limit: number }): Promise<TokenUse[]>;
}

/** One subject's labels (feedback on decisions), by label: how many within the window asked, and how many in all. */
export type LabelTally = Readonly<Record<string, { window: number; total: number }>>;

/** The request's subjects whose labels to count; a null subject is not asked. */
export interface ReputationQuery {
  /** The base address (normalize's base_email). */
  baseEmail: string | null;
  /** The address's domain as the `domain` fact spells it. */
  domain: string | null;
  /** Counted by their network: the IPv4 /24, the IPv6 /64 (src/ip-prefix.ts). */
  ipv4: string | null;
  ipv6: string | null;
  device: string | null;
  /** 1 to 365: today (UTC) and the days before it. */
  windowDays: number;
  /** The time the window ends at (ms). */
  now: number;
}

/** The labels of each subject asked; null for a subject not asked (no IP, no device). */
export interface Reputation {
  email: LabelTally | null;
  domain: LabelTally | null;
  /** The IPv4 /24's and the IPv6 /64's: for each label the larger of the two (a label with both IPs counts under both). */
  network: LabelTally | null;
  device: LabelTally | null;
}

/**
 * Read access to the labels the project's feedback gave (and, when it shares, the deployment's shared counts):
 * counters written with each label, read in one bounded statement whatever the history; a read the database
 * does not answer within the store's read timeout rejects.
 */
export interface ReputationReader {
  read(query: ReputationQuery): Promise<Reputation>;
}

/** Outcome of one DNS question. `error` (timeout, SERVFAIL, refused, budget spent) is unknown, never "no". */
export type DnsAnswer<T> = { status: 'ok'; records: T[] } | { status: 'nodata' } | { status: 'nxdomain' } | { status: 'error'; reason: string };

export interface MxRecord {
  exchange: string;
  priority: number;
}

/** Domain name lookups; the domain is in ASCII (punycode) form. Answers are cached by the implementation. */
export interface DnsLookup {
  mx(domain: string): Promise<DnsAnswer<MxRecord>>;
  a(domain: string): Promise<DnsAnswer<string>>;
  aaaa(domain: string): Promise<DnsAnswer<string>>;
}

/** One DNS blocklist zone's A answer about a name (RFC 5782: an address in 127.0.0.0/8 lists it, NXDOMAIN does not). */
export interface BlocklistAnswer {
  zone: string;
  answer: DnsAnswer<string>;
}

/**
 * The deployment's DNS blocklists (DNSBL_DOMAIN_ZONES, DNSBL_IP_ZONES), asked as DNS A questions with the
 * DNS lookups' cache, timeouts and budget. An empty array: no zone of that kind is configured.
 */
export interface BlocklistLookup {
  /** Each domain zone's answer for `<domain>.<zone>`; the domain in ASCII form. */
  domain(domain: string): Promise<BlocklistAnswer[]>;
  /** Each IP zone's answer for the address's reversed octets (IPv4) or 32 reversed nibbles (IPv6); empty for a text that is no address. */
  ip(address: string): Promise<BlocklistAnswer[]>;
}

export type LookupResult<T> = { status: 'ok'; value: T } | { status: 'unknown'; reason: string };

/** Registration data (RDAP) of a registrable domain. */
export interface RegistrationLookup {
  /** When the domain was registered (ms since the epoch), from RDAP's `registration` event. */
  registered(domain: string): Promise<LookupResult<number>>;
}

/** Whether a domain serves a website; refuses private, loopback and metadata addresses. */
export interface WebsiteProbe {
  hasWebsite(domain: string): Promise<LookupResult<boolean>>;
}

/**
 * The outside world, for one request: every call shares the request's network budget (after it, answers
 * are errors/unknown), and results are cached across requests (persisted only when `persist`).
 */
export interface NetworkAccess {
  /** False when network checks are turned off (NETWORK_CHECKS=off): plugins answer "not checked" at once. */
  readonly enabled: boolean;
  readonly dns: DnsLookup;
  readonly registration: RegistrationLookup;
  readonly website: WebsiteProbe;
  readonly blocklists: BlocklistLookup;
}

/**
 * The project's own domain lists (`email-trust project lists`), held in memory by the store: a read costs
 * no database work unless the lists changed since the last one.
 */
export interface ProjectListReader {
  /** The entries of one list (lower-case ASCII domains); empty when the project has none. */
  entries(list: string): Promise<ReadonlySet<string>>;
}

/** What a plugin's run receives. I/O goes only through here. */
export interface PluginContext {
  readonly input: RequestInput;
  /**
   * Value of a fact emitted by a plugin named in `needs` (computed once per request); null when unknown.
   * Any other fact rejects with an error naming both plugins: `needs` is the contract, not a hint. A fact
   * already computed is answered from the request's cache.
   */
  fact<T = unknown>(name: string): Promise<T | null>;
  /**
   * The values of several facts, in order: each read as `fact` reads it, all asked for at once (the plugins
   * behind them wait in parallel), with one wait for those not yet computed and none when all are.
   */
  facts(names: readonly string[]): Promise<unknown[]>;
  /** Options of one of this plugin's checks: the policy's, over the check's defaults. */
  options(check: string): CheckOptions;
  readonly velocity: VelocityReader;
  /** The labels of the request's address, domain, network and device (the reputation plugin's). */
  readonly reputation: ReputationReader;
  readonly network: NetworkAccess;
  /**
   * Entries of one of the project's own lists named in the plugin's `projectLists` (empty when it has none);
   * any other name rejects.
   */
  projectList(list: string): Promise<ReadonlySet<string>>;
  /** Current time in milliseconds (injectable for tests). */
  now(): number;
}

export type FactValues = Record<string, unknown>;

/**
 * A data list a plugin loads (a file of its data/ folder, or a list shipped inside a package), for
 * `email-trust data`. Source, license and date come from the plugin's data/SOURCE.md, next to the data.
 */
export interface DataList {
  /** The file under the plugin's data/ folder (e.g. `providers/aws.txt`), or the list's name. */
  name: string;
  /** Where the entries come from (upstream repository and path, package and version, or "curated"). */
  source: string;
  /** SPDX identifier(s) of the data's license, or `n/a` for a list that ships empty. */
  license: string;
  /** The snapshot date of the data, YYYY-MM-DD. */
  date: string;
  /** Entries the plugin loaded from it; null when the list cannot be counted (a package's compiled form). */
  entries: number | null;
  /** Where `email-trust data update` fetches it (the Upstreams table of SOURCE.md); absent: it has none. */
  upstream?: DataUpstream;
  /** Why it has no upstream that `update` could fetch (curated, a package, an aggregate), when it has none. */
  noUpstream?: string;
  /** When the plugin loaded an update installed by `email-trust data update` (DATA_DIR) instead of the shipped file. */
  installed?: InstalledList;
}

/** A list's maintained upstream: the published files it is made from, and how old the list may grow. */
export interface DataUpstream {
  /** The files fetched, in order (Cloudflare publishes IPv4 and IPv6 apart). */
  urls: readonly string[];
  /** The published form, a name of plugins/upstream-formats.ts (e.g. `aws-ip-ranges`). */
  format: string;
  /** Past this the list is stale: the upstream changes faster. */
  maxAgeDays: number;
  /**
   * The list's entries from the fetched bodies (in `urls`' order, each with the URL it came from), after the
   * plugin's guard; throws, naming the URL and where, when a body does not parse. Pure: the caller decides whether to install them.
   */
  compile(bodies: readonly { url: string; text: string }[]): string[];
}

/** The metadata written beside an installed list. */
export interface InstalledList {
  /** The URLs fetched (a mirror's, when DATA_SOURCES_URL is set). */
  urls: readonly string[];
  /** ISO 8601, UTC. */
  fetchedAt: string;
  /** Hex SHA-256 of the installed file. */
  sha256: string;
  entries: number;
}

export interface Plugin {
  /** kebab-case, equal to the folder name. */
  id: string;
  description: string;
  /**
   * Step identifiers (values of `steps`) this plugin performs: snake_case, owned by this plugin alone (checked at
   * registration, plugins/index.ts). Each check's name is one of them.
   */
  steps: readonly string[];
  /** The codes its checks carry (snake_case, owned by this plugin alone), each an error code, a warning code or both. */
  codes?: Readonly<Record<string, CodeSpec>>;
  facts: Readonly<Record<string, FactSpec>>;
  checks: Readonly<Record<string, CheckSpec>>;
  /** Ids of plugins whose facts `run` reads through ctx.fact (enforced when it reads; no cycles, checked at registration). */
  needs: readonly string[];
  /**
   * Names of the project lists (`email-trust project lists add <project> <list> FILE`) the plugin reads
   * through ctx.projectList; each name belongs to one plugin.
   */
  projectLists?: readonly string[];
  /** Does I/O: gets a low fact priority so cheap facts decide first. */
  io?: boolean;
  /**
   * Reads ctx.network (DNS, RDAP, the web) about the address's domain; with `io`. Its facts are domain
   * information, which a soft_check call does not store, in domain_facts or with its event. Only such a
   * plugin gets ctx.network: any other's read of it throws, so the declaration cannot fall behind the code.
   */
  network?: boolean;
  /** The data lists the plugin loaded (at start, or at its last reloadData), for `email-trust data`; absent when it loads none. */
  data?: readonly DataList[];
  /**
   * Reads its lists again (an update installed in DATA_DIR, else the shipped file) and, when they changed,
   * swaps them in whole for the requests that start after it, and `data` with them. Never stalls the requests
   * in flight: long work runs off the event loop. A list that cannot be read leaves the loaded one in place.
   */
  reloadData?(): Promise<void>;
  /**
   * Computes every fact in `facts`; a missing fact counts as null (unknown). Never throws for bad input;
   * an error it does throw is reported and makes all its facts unknown for the request.
   */
  run(ctx: PluginContext): Promise<FactValues>;
}

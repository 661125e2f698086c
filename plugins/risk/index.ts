// Risk score: one 0–100 number, a level and a breakdown, summed from other plugins' signals and failures
// with the policy's weights. No I/O of its own: it reads facts. A signal whose source could not tell
// (null, unknown: no IP, network checks off) contributes nothing.
import type { CheckOptions, Condition, FactValues, Plugin, PluginContext } from '../../src/engine/plugin.js';
// Risk needs velocity (see `needs`): its windows, their fact names and its scan limit come from the shared declaration.
import { DISTINCT_SCAN_LIMIT, distinctFact, WINDOWS, type WindowName } from '../velocity-windows.js';
import {
  type Contributor,
  DEFAULT_LEVELS,
  DEFAULT_WEIGHTS,
  FAILURES,
  failureList,
  LEVELS,
  type Level,
  type Levels,
  riskOf,
  SIGNALS,
  type Weights,
} from './score.js';

/** The velocity plugin's windows (its distinctFact(window) facts); `total` reads distinct_emails_in_ip. */
const VELOCITY_WINDOWS: readonly ('total' | WindowName)[] = ['total', ...WINDOWS.map((w) => w.name)];
/** The velocity plugin counts distinct addresses exactly up to its scan limit, so a higher threshold could never be decided. */
const MAX_VELOCITY_THRESHOLD = DISTINCT_SCAN_LIMIT;
const HEALTH_VALUES = ['excellent', 'healthy', 'risky', 'suspicious', 'dead'] as const;

const DEFAULT_MIN_LEVEL: Level = 'high';
const DEFAULT_HIGH_VELOCITY = { threshold: 5, window: '10_minutes' } as const;
const DEFAULT_POOR_HEALTH = ['suspicious', 'dead'] as const;
/** Bad labels (the reputation plugin's counts, within its window) that make a reported_* signal present. */
const DEFAULT_REPORTED = { domain_at_least: 3, ip_at_least: 2, device_at_least: 1 } as const;
type Reported = Record<keyof typeof DEFAULT_REPORTED, number>;

const integer = (min: number, max: number) => ({ type: 'integer', minimum: min, maximum: max });
const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

/** A policy's partial object option over its default, key by key (compile merges options only one level deep). */
function merged<T extends Record<string, unknown>>(given: unknown, defaults: T): T {
  return given && typeof given === 'object' ? { ...defaults, ...(given as Partial<T>) } : { ...defaults };
}

function weights(options: CheckOptions): Weights {
  const w = merged(options.weights, DEFAULT_WEIGHTS as Record<string, number>);
  return Object.fromEntries(Object.entries(DEFAULT_WEIGHTS).map(([k, d]) => [k, isInt(w[k]) ? w[k] : d])) as Weights;
}

function levels(options: CheckOptions): Levels {
  const l = merged(options.levels, DEFAULT_LEVELS as Record<string, number>);
  return Object.fromEntries(LEVELS.map((k) => [k, isInt(l[k]) ? l[k] : DEFAULT_LEVELS[k]])) as Levels;
}

function minLevel(options: CheckOptions): Level {
  return LEVELS.find((l) => l === options.min_level) ?? DEFAULT_MIN_LEVEL;
}

/** The fact that counts distinct addresses from the IP in the high_velocity window, and its threshold. */
function highVelocity(options: CheckOptions): { fact: string; threshold: number } {
  const hv = merged(options.high_velocity, DEFAULT_HIGH_VELOCITY as Record<string, unknown>);
  const window = VELOCITY_WINDOWS.find((w) => w === hv.window) ?? DEFAULT_HIGH_VELOCITY.window;
  return {
    fact: window === 'total' ? 'distinct_emails_in_ip' : distinctFact(window),
    threshold: isInt(hv.threshold) ? hv.threshold : DEFAULT_HIGH_VELOCITY.threshold,
  };
}

function reportedThresholds(options: CheckOptions): Reported {
  const r = merged(options.reported, DEFAULT_REPORTED as Record<string, unknown>);
  return Object.fromEntries(Object.entries(DEFAULT_REPORTED).map(([k, d]) => [k, isInt(r[k]) ? r[k] : d])) as Reported;
}

function poorHealth(options: CheckOptions): readonly string[] {
  return Array.isArray(options.poor_health) ? options.poor_health.filter((v) => typeof v === 'string') : DEFAULT_POOR_HEALTH;
}

/** A check's options worked out once per options object (a compiled policy's), not on every run. */
interface Settings {
  weights: Weights;
  levels: Levels;
  minLevel: Level;
  highVelocity: { fact: string; threshold: number };
  poorHealth: readonly string[];
  reported: Reported;
  /** Whether a reported_* signal has a weight: the labels are then read (one bounded store read). */
  readsReputation: boolean;
  /**
   * The facts present() reads, by readsIndex: EVIDENCE, then the device's signals (with a fingerprint), then the
   * AS class and the DNSBL listing of the IP (each with an IP and a weight), then the labels' counts (with a weight).
   */
  reads: readonly (readonly string[])[];
}

const settingsByOptions = new WeakMap<CheckOptions, Settings>();

function settingsOf(options: CheckOptions): Settings {
  let settings = settingsByOptions.get(options);
  if (!settings) {
    const velocity = highVelocity(options);
    const plain = [velocity.fact, ...EVIDENCE];
    const optional = [[DEVICE_EVIDENCE], [NETWORK_EVIDENCE], [DNSBL_EVIDENCE], REPUTATION_EVIDENCE];
    const w = weights(options);
    settings = {
      weights: w,
      levels: levels(options),
      minLevel: minLevel(options),
      highVelocity: velocity,
      poorHealth: poorHealth(options),
      reported: reportedThresholds(options),
      readsReputation: REPORTED_SIGNALS.some((signal) => w[signal] > 0),
      reads: Array.from({ length: 1 << optional.length }, (_, index) => [...plain, ...optional.filter((_facts, bit) => (index >> bit) & 1).flat()]),
    };
    settingsByOptions.set(options, settings);
  }
  return settings;
}

/** Facts read, by name: every one of a plugin in `needs`. */
const EVIDENCE = [
  'domain_age_signal',
  'random_subdomain_signal',
  'uuid_subdomain_risk_signal',
  'deep_nesting_risk_signal',
  'domain_health',
  'has_valid_tld',
  'valid_address_format',
  'is_disposable_domain',
  'is_known_abuse_domain',
  'is_spam_trap_domain',
  'mx_record_status',
  'has_fraud_pattern',
  'ip_provider',
  'vpn',
  'random_domain_signal',
  'disposable_infrastructure_signal',
] as const;

/** Read only when they can tell: the device's signals with a fingerprint, the IP's AS class and DNSBL listing with an IP and a weight. */
const DEVICE_EVIDENCE = 'device_risk_signals';
const NETWORK_EVIDENCE = 'ip_network_type';
const DNSBL_EVIDENCE = 'dnsbl_ip_listed';
/** The reputation plugin's counts, read when a reported_* signal has a weight. */
const REPUTATION_EVIDENCE = ['email_reported', 'domain_reported_count', 'domain_legitimate_count', 'ip_reported_count', 'device_reported_count'];
const REPORTED_SIGNALS = ['reported_email', 'reported_domain', 'reported_ip', 'reported_device'] as const;

/** The signals and failures present. Null and unknown answers are absent: they add nothing. */
async function present(ctx: PluginContext, settings: Settings): Promise<Set<Contributor>> {
  const { fingerprint, ipv4, ipv6 } = ctx.input;
  const device = fingerprint !== null && fingerprint !== undefined;
  const ip = ipv4 !== null || ipv6 !== null;
  // ip-network loads its tables at its first lookup: not for a policy that gives the AS class no weight.
  const network = settings.weights.hosting_network > 0 && ip;
  // Nor is a DNS blocklist asked about the IP for a policy that gives its listing no weight.
  const dnsbl = settings.weights.dnsbl_ip > 0 && ip;
  // Read together: the plugins behind them (DNS, RDAP, the store) wait in parallel.
  const reputation = settings.readsReputation;
  const values = await ctx.facts(settings.reads[(device ? 1 : 0) | (network ? 2 : 0) | (dnsbl ? 4 : 0) | (reputation ? 8 : 0)] as readonly string[]);
  const found = contributors(settings, values);
  let next = EVIDENCE.length + 1;
  if (device) addDeviceSignals(found, values[next++]);
  if (network) {
    const type = values[next++];
    if (type === 'hosting' || type === 'vpn') found.add('hosting_network');
  }
  if (dnsbl && values[next++] === true) found.add('dnsbl_ip');
  if (reputation) addReported(found, settings.reported, values.slice(next, next + REPUTATION_EVIDENCE.length));
  return found;
}

/** The reported_* signals, from REPUTATION_EVIDENCE's values in its order. The domain's counts only when its bad labels outnumber its legitimate ones. */
function addReported(found: Set<Contributor>, at: Reported, [email, domain, legitimate, ip, device]: readonly unknown[]): void {
  if (email === true) found.add('reported_email');
  if (isInt(domain) && domain >= at.domain_at_least && domain > (isInt(legitimate) ? legitimate : 0)) found.add('reported_domain');
  if (isInt(ip) && ip >= at.ip_at_least) found.add('reported_ip');
  if (isInt(device) && device >= at.device_at_least) found.add('reported_device');
}

/** device_risk_signals' values, by the risk signal each counts as (both inconsistencies are one). */
const DEVICE_SIGNALS: Readonly<Record<string, Contributor>> = {
  automation: 'device_automation',
  timezone_mismatch: 'device_inconsistency',
  language_mismatch: 'device_inconsistency',
  token_replay: 'token_replay',
  stale_token: 'stale_token',
  ip_hopping: 'ip_hopping',
};

function addDeviceSignals(found: Set<Contributor>, signals: unknown): void {
  if (!Array.isArray(signals)) return;
  for (const signal of signals) {
    const contributor = typeof signal === 'string' ? DEVICE_SIGNALS[signal] : undefined;
    if (contributor) found.add(contributor);
  }
}

/** `values`: the velocity fact, then EVIDENCE in its order (factsOf). */
function contributors(settings: Settings, values: readonly unknown[]): Set<Contributor> {
  const [
    distinct,
    domainAge,
    randomSubdomain,
    uuidSubdomain,
    deepNesting,
    health,
    validTld,
    validFormat,
    disposable,
    knownAbuse,
    spamTrap,
    mxStatus,
    fraudPattern,
    ipProvider,
    vpn,
    randomDomain,
    disposableInfrastructure,
  ] = values;
  const found = new Set<Contributor>();
  const add = (name: Contributor, present: boolean) => {
    if (present) found.add(name);
  };
  add('new_domain', domainAge === 'new_domain');
  add('random_subdomain', randomSubdomain === 'detected');
  add('uuid_subdomain', uuidSubdomain === 'detected');
  add('deep_nesting', deepNesting === 'detected');
  add('poor_health', typeof health === 'string' && settings.poorHealth.includes(health));
  add('unknown_tld', validTld === false);
  // ip_provider is `unknown` for an IP in no listed range (null without an IP): only a provider key counts.
  add('common_provider', typeof ipProvider === 'string' && ipProvider !== 'unknown');
  add('vpn', vpn === 'detected');
  add('high_velocity', isInt(distinct) && distinct >= settings.highVelocity.threshold);
  add('random_domain', randomDomain === 'detected');
  add('disposable_infrastructure', disposableInfrastructure === 'detected');
  add('structure', validFormat === false);
  add('disposable_domain', disposable === true);
  add('known_abuse_domain', knownAbuse === true);
  add('spam_trap_domain', spamTrap === true);
  add('mx_record', mxStatus === 'invalid');
  add('fraud_pattern_detection', fraudPattern === true);
  return found;
}

/** The levels at or above min_level: risk_score fires when risk_level is one of them. */
function fires(options: CheckOptions): Condition {
  return { fact: 'risk_level', operator: 'in', value: LEVELS.slice(LEVELS.indexOf(minLevel(options))) };
}

const contributorWeights = Object.fromEntries([...SIGNALS, ...FAILURES].map((name) => [name, integer(0, 100)]));

const plugin: Plugin = {
  id: 'risk',
  description:
    "Sums weighted risk signals (new domain, odd subdomains, poor health, unknown TLD, IP velocity, a machine-made domain on an abused TLD, MX hosts of a disposable service, the device's signals, a hosting provider's network, a DNS blocklist's IP listing, the project's bad labels of the address, domain, network or device) and validation failures into a 0–100 score and a level.",
  steps: ['risk_score'],
  codes: {
    high_risk_score: { error: 'reputation', warning: 'the risk level reaches min_level (default high)' },
  },
  facts: {
    risk_score: {
      type: 'integer',
      description: 'Sum of the weights of the signals and failures present, capped at 100; 0 when none is (unknown evidence adds nothing).',
      expose: ['field', 'analyzed_data'],
    },
    risk_level: {
      type: 'string',
      description:
        'The most severe level whose threshold risk_score reaches (default low 1, medium 30, high 60, critical 85); null when below low (no risk detected).',
      values: LEVELS,
      expose: ['field', 'analyzed_data'],
    },
    is_high_risk: {
      type: 'boolean',
      description:
        "risk_level reaches the risk_score check's min_level (default high): what that check fires on, as a boolean for the intelligence verdict (field email_high_risk).",
    },
    risk_score_breakdown: {
      type: 'object',
      description: 'Contribution of each signal and failure present, by name; the values sum to risk_score before the cap at 100. {} when none.',
      expose: 'field',
    },
    risk_breakdown_signals: {
      type: 'string',
      description: `The signals that contributed, comma-separated, in this order: ${SIGNALS.join(', ')}; null when none.`,
      expose: 'analyzed_data',
    },
    risk_breakdown_failures: {
      type: 'string',
      description: `The validation failures that contributed, as step:weight pairs joined by commas (disposable_domain:40,mx_record:25), in this order: ${FAILURES.join(', ')}; null when none.`,
      expose: 'analyzed_data',
    },
  },
  checks: {
    risk_score: {
      description: 'risk_level reaches min_level (default high).',
      when: fires,
      code: 'high_risk_score',
      checkedType: 'risk_score',
      options: {
        type: 'object',
        additionalProperties: false,
        properties: {
          min_level: { enum: [...LEVELS], description: 'Least severe risk_level the check fires on.' },
          weights: {
            type: 'object',
            additionalProperties: false,
            properties: contributorWeights,
            description: 'Points each signal or failure adds (0 turns it off); keys not given keep their default.',
          },
          levels: {
            type: 'object',
            additionalProperties: false,
            properties: Object.fromEntries(LEVELS.map((l) => [l, integer(1, 100)])),
            description: 'Lowest risk_score of each level; keys not given keep their default.',
          },
          high_velocity: {
            type: 'object',
            additionalProperties: false,
            properties: { threshold: integer(2, MAX_VELOCITY_THRESHOLD), window: { enum: [...VELOCITY_WINDOWS] } },
            description: 'high_velocity: at least threshold distinct addresses (this one included) from the IP within window.',
          },
          reported: {
            type: 'object',
            additionalProperties: false,
            properties: { domain_at_least: integer(1, 1_000_000), ip_at_least: integer(1, 1_000_000), device_at_least: integer(1, 1_000_000) },
            description:
              'Bad labels within the reputation window that make reported_domain (and more bad than legitimate ones), reported_ip and reported_device present.',
          },
          poor_health: {
            type: 'array',
            items: { enum: [...HEALTH_VALUES] },
            uniqueItems: true,
            description: 'domain_health values that count as poor_health.',
          },
        },
      },
      defaults: {
        min_level: DEFAULT_MIN_LEVEL,
        weights: { ...DEFAULT_WEIGHTS },
        levels: { ...DEFAULT_LEVELS },
        high_velocity: { ...DEFAULT_HIGH_VELOCITY },
        poor_health: [...DEFAULT_POOR_HEALTH],
        reported: { ...DEFAULT_REPORTED },
      },
    },
  },
  needs: [
    'structure',
    'tld',
    'subdomain',
    'domain-age',
    'domain-health',
    'domain-shape',
    'dns',
    'disposable',
    'disposable-infrastructure',
    'known-abuse',
    'spam-trap',
    'fraud-pattern',
    'ip-intelligence',
    'ip-network',
    'dnsbl-ip',
    'velocity',
    'device',
    'reputation',
  ],
  async run(ctx): Promise<FactValues> {
    const settings = settingsOf(ctx.options('risk_score'));
    const risk = riskOf(await present(ctx, settings), settings.weights, settings.levels);
    const failures = failureList(risk);
    return {
      risk_score: risk.score,
      risk_level: risk.level,
      is_high_risk: risk.level !== null && LEVELS.indexOf(risk.level) >= LEVELS.indexOf(settings.minLevel),
      risk_score_breakdown: risk.breakdown,
      risk_breakdown_signals: risk.signals.length > 0 ? risk.signals.join(',') : null,
      risk_breakdown_failures: failures === '' ? null : failures,
    };
  },
};

export default plugin;

// The risk score as a pure function: which signals and failures are present in, weights and level
// thresholds in, the score, its level and its breakdown out. No facts, no I/O: index.ts gathers the evidence.

/** Risk signals: traits of the domain or the caller that make abuse likelier (the spec's list). */
export const SIGNALS = [
  'new_domain',
  'random_subdomain',
  'uuid_subdomain',
  'deep_nesting',
  'poor_health',
  'unknown_tld',
  'common_provider',
  'vpn',
  'high_velocity',
  'random_domain',
  'disposable_infrastructure',
  'device_automation',
  'device_inconsistency',
  'token_replay',
  'stale_token',
  'ip_hopping',
  'hosting_network',
  'dnsbl_ip',
  'reported_email',
  'reported_domain',
  'reported_ip',
  'reported_device',
] as const;
export type Signal = (typeof SIGNALS)[number];

/** Validation failures that add to the risk, named by the step (check) that reports them. */
export const FAILURES = ['structure', 'disposable_domain', 'known_abuse_domain', 'spam_trap_domain', 'mx_record', 'fraud_pattern_detection'] as const;
export type Failure = (typeof FAILURES)[number];

export type Contributor = Signal | Failure;
/** Every contributor, in breakdown order. */
const CONTRIBUTORS: readonly Contributor[] = [...SIGNALS, ...FAILURES];
export type Weights = Record<Contributor, number>;

export const DEFAULT_WEIGHTS: Weights = {
  new_domain: 20,
  random_subdomain: 15,
  uuid_subdomain: 15,
  deep_nesting: 10,
  poor_health: 25,
  unknown_tld: 25,
  common_provider: 10,
  vpn: 25,
  high_velocity: 60,
  random_domain: 40,
  disposable_infrastructure: 40,
  // The device plugin's signals (a fingerprint's): a real browser shows none of them.
  device_automation: 40,
  device_inconsistency: 15,
  token_replay: 40,
  stale_token: 10,
  ip_hopping: 25,
  // ip-network's AS class: 0 by default, so that its tables (+15–19 MB) load only where a policy weighs it.
  hosting_network: 0,
  // dnsbl-ip's listing: 0 by default, so that no IP zone is asked for a policy that does not weigh it (a listed domain is known_abuse_domain already).
  dnsbl_ip: 0,
  // The project's own feedback (plugins/reputation): the address itself labelled bad is high alone; its domain,
  // network or device add to other signals (the domain only while its bad labels outnumber its legitimate ones).
  reported_email: 60,
  reported_domain: 30,
  reported_ip: 25,
  reported_device: 40,
  structure: 40,
  disposable_domain: 40,
  known_abuse_domain: 50,
  spam_trap_domain: 50,
  mx_record: 25,
  fraud_pattern_detection: 20,
};

/** Risk levels, least to most severe. */
export const LEVELS = ['low', 'medium', 'high', 'critical'] as const;
export type Level = (typeof LEVELS)[number];
/** Lowest score of each level. */
export type Levels = Record<Level, number>;

export const DEFAULT_LEVELS: Levels = { low: 1, medium: 30, high: 60, critical: 85 };

export const MAX_SCORE = 100;

export interface Risk {
  /** Sum of the contributions, capped at MAX_SCORE. */
  score: number;
  /** The most severe level whose threshold the score reaches; null below the low threshold (no risk detected). */
  level: Level | null;
  /** One key per contributor present with a weight above 0; the values sum to the score before the cap. */
  breakdown: Partial<Record<Contributor, number>>;
  signals: Signal[];
  failures: Failure[];
}

/** Scores the contributors present (in any order; each counts once). */
export function riskOf(present: ReadonlySet<Contributor>, weights: Weights, levels: Levels): Risk {
  const breakdown: Partial<Record<Contributor, number>> = {};
  let sum = 0;
  for (const name of CONTRIBUTORS) {
    const weight = weights[name];
    if (!present.has(name) || weight <= 0) continue;
    breakdown[name] = weight;
    sum += weight;
  }
  const score = Math.min(MAX_SCORE, sum);
  const level = [...LEVELS].reverse().find((l) => score >= levels[l]) ?? null;
  return {
    score,
    level,
    breakdown,
    signals: SIGNALS.filter((s) => s in breakdown),
    failures: FAILURES.filter((f) => f in breakdown),
  };
}

/** `name:weight` pairs joined by commas, in the order given: the format of risk_breakdown_failures. */
export function failureList(risk: Risk): string {
  return risk.failures.map((f) => `${f}:${risk.breakdown[f]}`).join(',');
}

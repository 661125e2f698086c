// The interface's vocabularies in one place: actions, steps, error and warning codes, checked types and
// the words policies are written in. Code imports these lists, the JSON Schemas refer to them
// (src/schemas.ts builds `vocabulary.schema.json` from this module) and tests assert against them, so
// adding a code is one edit here. docs/api.md describes them; docs/facts.md lists them with their checks.

/** Recommended actions, least to most severe: a decision's action is the most severe one that fired. */
export const ACTIONS = ['none', 'allow', 'allow_with_verification', 'allow_with_review', 'warn', 'challenge', 'soft_block', 'quarantine', 'block'] as const;
export type Action = (typeof ACTIONS)[number];

/** The /v1/intelligence verdict, and what a parent rule answers when it matches. */
export const VERDICT_ACTIONS = ['allow', 'block', 'ignore'] as const;
export type VerdictAction = (typeof VERDICT_ACTIONS)[number];

/** hard: a fired check's code goes to `errors`; soft: to `warnings`. */
export const MODES = ['hard', 'soft'] as const;
export type Mode = (typeof MODES)[number];

/** What a check does when the facts it reads are unknown (a lookup failed): never fire by default. */
export const ON_UNKNOWN = ['allow', 'block', 'ignore'] as const;
export type OnUnknown = (typeof ON_UNKNOWN)[number];

/** Comparison operators a policy condition may use (json-rules-engine's names). */
export const OPERATORS = [
  'equal',
  'notEqual',
  'lessThan',
  'lessThanInclusive',
  'greaterThan',
  'greaterThanInclusive',
  'in',
  'notIn',
  'contains',
  'doesNotContain',
] as const;
export type Operator = (typeof OPERATORS)[number];

/** Operators of a parent rule (custom_policy and a policy's `intelligence:` section). */
export const PARENT_RULE_OPERATORS = ['==', '!='] as const;

/** Validation steps: the values of `steps`, and the names of the checks a policy enables. */
export const STEPS = [
  'structure',
  'local_plus',
  'local_dot',
  'local_hyphen',
  'local_underscore',
  'local_numeric',
  'local_quoted',
  'local_special_chars',
  'local_empty',
  'subdomain_wildcard',
  'subdomain_single',
  'subdomain_double',
  'subdomain_triple',
  'subdomain_deeply_nested',
  'subdomain_hyphenated',
  'subdomain_numeric',
  'subdomain_uuid_hash',
  'uuid_subdomain',
  'random_subdomain',
  'deep_nesting',
  'domain_ipv4',
  'domain_ipv6',
  'ip_provider',
  'domain_single_label',
  'domain_numeric_only',
  'internationalized_email',
  'punycode_email',
  'mixed_script_email',
  'catch_all_wildcard',
  'local_part_max_length',
  'domain_max_length',
  'total_address_length',
  'label_max_length',
  'tld',
  'free_provider_domain',
  'role_based_address',
  'disposable_domain',
  'known_abuse_domain',
  'spam_trap_domain',
  'education_domain',
  'government_domain',
  'specific_domains',
  'mx_record',
  'fallback_a_record',
  'typo_detection',
  'fraud_pattern_detection',
  'domain_age',
  'deliverability_score',
  'domain_health',
  'risk_score',
  'vpn_ip',
  'ip_duplication',
] as const;
export type Step = (typeof STEPS)[number];

/** Validation types: the values of `checked_types`. */
export const CHECKED_TYPES = [
  'address_format',
  'mx_record',
  'disposable_domain',
  'role_based_address',
  'free_provider_domain',
  'known_abuse_domain',
  'spam_trap_domain',
  'education_domain',
  'government_domain',
  'typo_detection',
  'fraud_pattern_detection',
  'risk_score',
  'multiple_emails_in_ip',
] as const;
export type CheckedType = (typeof CHECKED_TYPES)[number];

/** Error codes by group: each means the named trait is present and not permitted, or the named check failed. */
export const ERROR_CODE_GROUPS = {
  format: ['invalid_address_format', 'local_is_empty', 'invalid_tld'],
  local_part: [
    'local_contains_plus_symbol',
    'local_contains_dot_variations',
    'local_contains_hyphen',
    'local_contains_underscore',
    'local_is_numeric',
    'local_is_quoted',
    'local_contains_special_chars',
    'local_part_exceeds_max_length',
  ],
  subdomain: [
    'subdomain_contains_wildcard',
    'subdomain_single',
    'subdomain_double',
    'subdomain_triple',
    'subdomain_deeply_nested',
    'subdomain_contains_hyphen',
    'subdomain_is_numeric',
    'subdomain_contains_uuid_hash',
  ],
  domain: [
    'domain_is_ipv4_address',
    'domain_is_ipv6_address',
    'domain_is_single_label',
    'domain_is_numeric_only',
    'domain_exceeds_max_length',
    'total_address_exceeds_max_length',
    'label_exceeds_max_length',
  ],
  // Not in the interface (it gives these checks no code); added so that every action other than allow names its reason.
  classification: ['not_in_specific_domains', 'domain_is_disposable', 'domain_is_known_abuse', 'domain_is_spam_trap', 'local_is_role_based'],
  dns: ['no_mx_records', 'no_a_record'],
  detection: ['domain_typo_detected', 'fraud_pattern_detected'],
  // Not in the interface either (same reason): the network-based verdicts and the risk score.
  reputation: ['domain_is_new', 'low_deliverability_score', 'poor_domain_health', 'high_risk_score'],
  internationalisation: ['email_is_internationalized', 'email_contains_punycode', 'email_is_mixed_script'],
  other: ['local_contains_catch_all_wildcard'],
} as const;
export type ErrorCode = (typeof ERROR_CODE_GROUPS)[keyof typeof ERROR_CODE_GROUPS][number];
export const ERROR_CODES: readonly ErrorCode[] = Object.values(ERROR_CODE_GROUPS).flat();

/** Warning codes, each with its meaning. */
export const WARNING_CODES = {
  domain_typo_detected: 'soft form of the typo detection',
  fraud_pattern_detected: 'soft form of the fraud-pattern detection',
  common_provider_detected: 'a common cloud provider was detected (informational)',
  vpn_detected: 'the IP is a VPN or proxy',
  multiple_accounts_detected: 'several accounts from one IP',
  // Soft forms of the codes this project added (not in the interface): see ERROR_CODE_GROUPS.
  domain_is_disposable: 'the domain is a disposable (throwaway) mailbox provider',
  domain_is_known_abuse: 'the domain is a known source of abuse or spam',
  domain_is_spam_trap: 'the domain is a spam trap',
  local_is_role_based: 'the local part is a role (support, info, noreply), not a person',
  domain_is_new: 'the registrable domain was registered recently (domain_age new_domain_days)',
  low_deliverability_score: 'the deliverability score is below min_score, or mail cannot be routed to the domain',
  poor_domain_health: 'the domain health is one of the flagged values (default dead, suspicious)',
  high_risk_score: 'the risk level reaches min_level (default high)',
} as const;

export type WarningCode = keyof typeof WARNING_CODES;

/** Every code a built-in check may carry: a hard check reports it under `errors`, a soft one under `warnings`. */
export type CheckCode = ErrorCode | WarningCode;
export const CHECK_CODES: readonly CheckCode[] = [...new Set<CheckCode>([...ERROR_CODES, ...(Object.keys(WARNING_CODES) as WarningCode[])])];

// The sets the interface fixes whatever checks are registered: actions, verdict actions, modes, on_unknown,
// operators, feedback's labels and the groups of error codes. Steps, codes and checked types belong to the plugins that
// declare them (plugins/register.ts checks them, src/engine/words.ts lists them). src/schemas.ts builds `vocabulary.schema.json` from both;
// docs/api.md describes them and docs/facts.md lists them with their checks.

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

/** Comparison operators a policy condition may use (json-rules-engine's names, and two of ours). */
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
  // Ours (src/engine/operators.ts): a domain or one of its parents is listed; an IP address is in a listed network.
  'inDomains',
  'inNetworks',
] as const;
export type Operator = (typeof OPERATORS)[number];

/** The labels feedback gives a decision (POST /v1/feedback), bad ones first; GOOD_LABEL is the one good label. */
export const FEEDBACK_LABELS = ['fraud', 'abuse', 'spam_complaint', 'bounced', 'spam_trap', 'chargeback', 'legitimate'] as const;
export type FeedbackLabel = (typeof FEEDBACK_LABELS)[number];
export const GOOD_LABEL: FeedbackLabel = 'legitimate';

/** Operators of a parent rule (custom_policy and a policy's `intelligence:` section). */
export const PARENT_RULE_OPERATORS = ['==', '!='] as const;

/**
 * The groups an error code belongs to (docs/facts.md's error table, in this order). The codes themselves, the
 * steps and the checked types are the plugins' words: each plugin declares its own (src/engine/words.ts builds
 * the lists from the registry), so a new check changes nothing here.
 */
export const CODE_GROUPS = [
  'format',
  'local_part',
  'subdomain',
  'domain',
  // Not all in the interface (it gives the domain classifications no code): so every action other than allow names its reason.
  'classification',
  'dns',
  'detection',
  // Not in the interface either (same reason): the network-based verdicts and the risk score.
  'reputation',
  'internationalisation',
  'other',
] as const;
export type CodeGroup = (typeof CODE_GROUPS)[number];

/** The form of a plugin's words (steps, codes, checked types) and of a policy rule's own codes. */
export const SNAKE_CASE = /^[a-z][a-z0-9_]*$/;

// The policy document as written (YAML or JSON), after schema validation.

export const ACTIONS = ['none', 'allow', 'allow_with_verification', 'allow_with_review', 'warn', 'challenge', 'soft_block', 'quarantine', 'block'] as const;

export type Action = (typeof ACTIONS)[number];

export type Mode = 'hard' | 'soft';

export interface CheckConfig {
  enabled?: boolean;
  mode?: Mode;
  action?: Action;
  on_unknown?: 'allow' | 'block' | 'ignore';
  options?: Record<string, unknown>;
}

export type RuleCondition = { all: RuleCondition[] } | { any: RuleCondition[] } | { not: RuleCondition } | { fact: string; operator: string; value: unknown };

export interface FreeRule {
  name: string;
  description?: string;
  conditions: RuleCondition;
  action: Action;
  error?: string;
  warning?: string;
}

export interface ParentRule {
  field: string;
  operator: '==' | '!=';
  target: { bool: boolean };
  action: 'allow' | 'block' | 'ignore';
}

export interface IntelligencePolicy {
  stop_on_block?: boolean;
  parent_rules?: ParentRule[];
}

export interface PolicyTest {
  name: string;
  input: { email_address: string; ipv4_address?: string; ipv6_address?: string };
  expected: { action?: Action; errors?: string[]; warnings?: string[] };
}

export interface PolicyDocument {
  version: string;
  description?: string;
  default_action?: Action;
  checks?: Record<string, CheckConfig>;
  rules?: FreeRule[];
  intelligence?: IntelligencePolicy;
  tests?: PolicyTest[];
}

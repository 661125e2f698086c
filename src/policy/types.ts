// The policy document as written (YAML or JSON), after schema validation.
import type { Condition } from '../engine/plugin.js';
import type { Action, Mode, OnUnknown, VerdictAction } from '../vocabulary.js';

export interface CheckConfig {
  enabled?: boolean;
  mode?: Mode;
  action?: Action;
  on_unknown?: OnUnknown;
  options?: Record<string, unknown>;
}

export interface FreeRule {
  name: string;
  description?: string;
  conditions: Condition;
  action: Action;
  error?: string;
  warning?: string;
}

/** Who an exemption covers: every condition given must hold. */
export interface ExemptionMatch {
  /** The address's domain or a parent of it is listed. */
  domains?: string[];
  /** The address lower-cased, or its base address, is listed. */
  addresses?: string[];
  /** The caller's IP is listed or in a listed network. */
  ips?: string[];
  /** The domain or a parent of it is on this project list. */
  project_list?: 'exempt';
  conditions?: Condition;
}

/** Sign-ups let through the checks and free rules named in `from` (`all`: every one of the policy). */
export interface Exemption {
  name: string;
  description?: string;
  when: ExemptionMatch;
  from: 'all' | string[];
}

export interface ParentRule {
  field: string;
  operator: '==' | '!=';
  target: { bool: boolean };
  action: VerdictAction;
}

export interface IntelligencePolicy {
  stop_on_block?: boolean;
  parent_rules?: ParentRule[];
}

/** An earlier validation in a policy test's history (what velocity reads). */
export interface HistoryEntry {
  email_address: string;
  ipv4_address?: string;
  ipv6_address?: string;
  /** Device hash of the earlier validation (what a fingerprint carries). */
  device?: string;
  /** Id of the fingerprint token it presented (the test input's `fingerprint.token`). */
  fingerprint_token?: string;
  /** How long before the test's request it was made. */
  minutes_ago?: number;
}

/** An earlier outcome of the project (a label feedback gave), for the reputation facts of a policy test. */
export interface LabelEntry {
  email_address: string;
  /** fraud, abuse, spam_complaint, bounced, spam_trap, chargeback or legitimate. */
  label: string;
  ipv4_address?: string;
  ipv6_address?: string;
  /** Device hash of the labelled decision. */
  device?: string;
  /** How long before the test's request the outcome was observed (default 0). */
  days_ago?: number;
}

/** What a policy test's DNS blocklist (one zone) answers: an address in 127/8, several, or `error`; a name not listed is not listed. */
export type BlocklistListing = string | string[] | 'error';

export interface TestBlocklists {
  /** By registrable domain (what a domain zone lists). */
  domains?: Record<string, BlocklistListing>;
  /** By IP address, in any spelling. */
  ips?: Record<string, BlocklistListing>;
}

/** What the network says about one domain in a policy test; `nxdomain` or `error` for the whole name. */
export type DomainAnswers =
  | 'nxdomain'
  | 'error'
  | {
      /** MX hosts in preference order; `[]` no MX records; `["."]` a null MX. Absent: no MX records. */
      mx?: string[] | 'error';
      a?: string[] | 'error';
      aaaa?: string[] | 'error';
      /** Registration date (RDAP), ISO 8601; absent (and no registered_days_ago): unknown. */
      registered?: string;
      /** Registered this many days before the test's request. */
      registered_days_ago?: number;
      /** Whether the domain serves a website; absent: unknown. */
      website?: boolean;
    };

/** A policy test's fingerprint token, as the service would open it. */
export interface TestFingerprint {
  /** Its id (default `policy-test-token`): history entries name it as `fingerprint_token`. */
  token?: string;
  /** When it was issued, before the test's request (default 0). */
  issued_minutes_ago?: number;
  /** The addresses that obtained it (default: the input's). */
  ipv4_address?: string;
  ipv6_address?: string;
  timezone?: string;
  automation?: string[];
  languages?: string[];
}

export interface PolicyTest {
  name: string;
  /**
   * `device` and `fingerprint` are test-only: the device hash and what a fingerprint token carries (verify
   * takes the token itself).
   */
  input: { email_address: string; ipv4_address?: string; ipv6_address?: string; device?: string; fingerprint?: TestFingerprint };
  /** Earlier validations of the project (velocity history); none when absent. */
  history?: HistoryEntry[];
  /** Earlier outcomes of the project (labels, for the reputation facts); none when absent. */
  labels?: LabelEntry[];
  /** Network answers per domain; without it the network checks answer "not checked". */
  network?: Record<string, DomainAnswers>;
  /** What one DNS blocklist zone answers (the DNSBL facts); without it no zone is configured. */
  blocklists?: TestBlocklists;
  /** The project's own domain lists (`email-trust project lists`), by list name; none when absent. */
  lists?: Record<string, string[]>;
  expected: {
    action?: Action;
    errors?: string[];
    warnings?: string[];
    /** Names of the checks and free rules that fired, in any order. */
    fired?: string[];
    /** Names of the exemptions that applied, in any order. */
    exemptions?: string[];
    /** The typo correction of the answer; null: none. */
    corrected_email?: string | null;
    /** The answer's risk_level; null: none (no risk detected). */
    risk_level?: 'low' | 'medium' | 'high' | 'critical' | null;
    risk_score?: number;
    /** Classification flags of the answer (is_free_provider_domain …); null: not checked. */
    [flag: `is_${string}` | `has_${string}`]: boolean | null | undefined;
  };
}

export interface PolicyDocument {
  version: string;
  description?: string;
  default_action?: Action;
  checks?: Record<string, CheckConfig>;
  rules?: FreeRule[];
  exemptions?: Exemption[];
  intelligence?: IntelligencePolicy;
  tests?: PolicyTest[];
}

// Reputation from the project's own outcomes: the labels its feedback gave earlier decisions (POST /v1/feedback,
// `email-trust feedback import`), counted by base address, domain, network and device. The counts come from
// ctx.reputation (the store's counters, written with each label): one bounded read per request.
import type { CheckOptions, Condition, FactValues, LabelTally, Plugin } from '../../src/engine/plugin.js';
import { FEEDBACK_LABELS, GOOD_LABEL } from '../../src/vocabulary.js';

/** Longest window, in days (the store's MAX_WINDOW_DAYS). */
export const MAX_WINDOW_DAYS = 365;
const MAX_THRESHOLD = 1_000_000;

const BAD_LABELS = FEEDBACK_LABELS.filter((label) => label !== GOOD_LABEL);

export const REPUTATION_DEFAULTS = { window_days: 30, domain_at_least: 5, ip_at_least: 3, device_at_least: 1 } as const;

const threshold = (description: string) => ({ type: 'integer', minimum: 1, maximum: MAX_THRESHOLD, description });
const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

/** Bad labels of one subject: within the window, or in all. */
function reported(tally: LabelTally, span: 'window' | 'total'): number {
  let n = 0;
  for (const label of BAD_LABELS) n += tally[label]?.[span] ?? 0;
  return n;
}

/** The domain's labels in all, by label, those it has only. */
function totals(tally: LabelTally): Record<string, number> {
  const out: Record<string, number> = {};
  for (const label of FEEDBACK_LABELS) {
    const n = tally[label]?.total ?? 0;
    if (n > 0) out[label] = n;
  }
  return out;
}

const text = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

function reportedCondition(options: CheckOptions): Condition {
  const at = (name: keyof typeof REPUTATION_DEFAULTS) => (isInt(options[name]) ? (options[name] as number) : REPUTATION_DEFAULTS[name]);
  return {
    any: [
      { fact: 'email_reported', operator: 'equal', value: true },
      { fact: 'domain_reported_count', operator: 'greaterThanInclusive', value: at('domain_at_least') },
      { fact: 'ip_reported_count', operator: 'greaterThanInclusive', value: at('ip_at_least') },
      { fact: 'device_reported_count', operator: 'greaterThanInclusive', value: at('device_at_least') },
    ],
  };
}

const plugin: Plugin = {
  id: 'reputation',
  description:
    "Counts the bad and good labels the project's feedback gave earlier decisions of the same base address, domain, network (IPv4 /24, IPv6 /64) and device.",
  steps: ['reputation'],
  codes: {
    reported_by_feedback: { error: 'reputation', warning: "the address, or its domain, network or device, carries bad labels from the project's feedback" },
  },
  io: true,
  facts: {
    email_reported: {
      type: 'boolean',
      description: 'The base address carries a bad label (any label but legitimate), whenever given; null when the address is invalid.',
      expose: 'analyzed_data',
    },
    domain_reported_count: {
      type: 'integer',
      description: "Bad labels of the address's domain within the reputation check's window_days (default 30); null when the address is invalid.",
      expose: 'analyzed_data',
    },
    domain_legitimate_count: {
      type: 'integer',
      description:
        "legitimate labels of the address's domain within the window: customers the domain's reports should be weighed against; null when the address is invalid.",
      expose: 'analyzed_data',
    },
    ip_reported_count: {
      type: 'integer',
      description: "Bad labels of the request IP's network (IPv4 /24, IPv6 /64; with both, the larger count) within the window; null without an IP.",
      expose: 'analyzed_data',
    },
    device_reported_count: {
      type: 'integer',
      description: "Bad labels of the fingerprint's device within the window; null without a device.",
      expose: 'analyzed_data',
    },
    domain_label_counts: {
      type: 'object',
      description:
        "The domain's labels in all (no window), by label, those with a count only ({spam_trap: 3}): what known_abuse_domain's and spam_trap_domain's labelled_at_least read; null when the address is invalid.",
    },
  },
  checks: {
    reputation: {
      description:
        'The base address carries a bad label, or its domain, network or device reaches domain_at_least, ip_at_least or device_at_least bad labels within window_days.',
      when: reportedCondition,
      code: 'reported_by_feedback',
      checkedType: 'reputation',
      options: {
        type: 'object',
        additionalProperties: false,
        properties: {
          window_days: { type: 'integer', minimum: 1, maximum: MAX_WINDOW_DAYS, description: 'Days the counts look back: today (UTC) and the days before it.' },
          domain_at_least: threshold('Bad labels of the domain within the window that fire the check (default 5).'),
          ip_at_least: threshold("Bad labels of the IP's network within the window that fire the check (default 3)."),
          device_at_least: threshold('Bad labels of the device within the window that fire the check (default 1).'),
        },
      },
      defaults: { ...REPUTATION_DEFAULTS },
    },
  },
  needs: ['structure', 'normalize'],
  async run(ctx): Promise<FactValues> {
    const [valid, base, domain] = await ctx.facts(['valid_address_format', 'base_email', 'domain']);
    const baseEmail = valid === true ? text(base) : null;
    const domainName = valid === true ? text(domain) : null;
    const { ipv4, ipv6, device } = ctx.input;
    const ip4 = text(ipv4);
    const ip6 = text(ipv6);
    const dev = text(device);
    if (!baseEmail && !domainName && !ip4 && !ip6 && !dev) return {};
    const options = ctx.options('reputation');
    const windowDays = isInt(options.window_days) ? options.window_days : REPUTATION_DEFAULTS.window_days;
    // The store bounds the read; when it fails, the runner reports it and every fact here is unknown.
    const r = await ctx.reputation.read({ baseEmail, domain: domainName, ipv4: ip4, ipv6: ip6, device: dev, windowDays, now: ctx.now() });
    return {
      email_reported: r.email ? reported(r.email, 'total') > 0 : null,
      domain_reported_count: r.domain ? reported(r.domain, 'window') : null,
      domain_legitimate_count: r.domain ? (r.domain[GOOD_LABEL]?.window ?? 0) : null,
      ip_reported_count: r.network ? reported(r.network, 'window') : null,
      device_reported_count: r.device ? reported(r.device, 'window') : null,
      domain_label_counts: r.domain ? totals(r.domain) : null,
    };
  },
};

export default plugin;

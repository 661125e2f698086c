// IP velocity: how many addresses, and how many validations, this project has seen from the
// request's IP, in total and in trailing windows. History comes from ctx.velocity (the store).
import type { CheckOptions, Condition, FactSpec, FactValues, Plugin } from '../../src/engine/plugin.js';
import { countFact, DISTINCT_SCAN_LIMIT, distinctFact, LIST_LIMIT, velocityFacts, WINDOWS, type WindowName, windowStarts } from './windows.js';

const WINDOW_OPTIONS = ['total', ...WINDOWS.map((w) => w.name)] as const;

const windowFacts: Record<string, FactSpec> = {};
for (const w of WINDOWS) {
  const span = w.name.replace('_', ' ');
  windowFacts[countFact(w.name)] = {
    type: 'integer',
    description: `Validations from this IP in the last ${span}, this request included.`,
    expose: 'analyzed_data',
  };
}
for (const w of WINDOWS) {
  windowFacts[distinctFact(w.name)] = {
    type: 'integer',
    description: `Distinct addresses validated from this IP in the last ${w.name.replace('_', ' ')}, this one included (exact up to ${DISTINCT_SCAN_LIMIT}).`,
  };
}

const facts: Record<string, FactSpec> = {
  has_multiple_emails_in_ip: {
    type: 'boolean',
    description: 'More than one distinct address has been validated from this IP, this one included.',
    expose: 'flag',
  },
  distinct_emails_in_ip: {
    type: 'integer',
    description: 'Distinct addresses validated from this IP across the project, this one included.',
  },
  emails_in_ip: {
    type: 'array',
    description: `Distinct addresses from this IP, newest first, this request first, at most ${LIST_LIMIT}: {email_address, created_time}.`,
    expose: 'analyzed_data',
  },
  total_email_in_ip: {
    type: 'integer',
    description: 'Validations from this IP across the project, this request included.',
    expose: 'analyzed_data',
  },
  ...windowFacts,
};

const nullFacts: FactValues = Object.fromEntries(Object.keys(facts).map((name) => [name, null]));

function ipDuplication(options: CheckOptions): Condition {
  const window = WINDOWS.find((w) => w.name === options.window)?.name;
  return {
    fact: window ? distinctFact(window as WindowName) : 'distinct_emails_in_ip',
    operator: 'greaterThanInclusive',
    value: options.threshold,
  };
}

const plugin: Plugin = {
  id: 'velocity',
  description: "Counts the addresses and validations this project has seen from the request's IPv4/IPv6 address, in total and per trailing window.",
  steps: ['ip_duplication'],
  facts,
  checks: {
    ip_duplication: {
      description: 'At least `threshold` distinct addresses (this one included) came from the IP within `window`.',
      when: ipDuplication,
      code: 'multiple_accounts_detected',
      checkedType: 'multiple_emails_in_ip',
      options: {
        type: 'object',
        additionalProperties: false,
        properties: {
          threshold: { type: 'integer', minimum: 2, maximum: DISTINCT_SCAN_LIMIT },
          window: { enum: [...WINDOW_OPTIONS] },
        },
      },
      defaults: { threshold: 3, window: 'total' },
    },
  },
  needs: [],
  io: true,
  async run(ctx) {
    const { email, ipv4, ipv6 } = ctx.input;
    const v4 = typeof ipv4 === 'string' && ipv4 !== '' ? ipv4 : null;
    const v6 = typeof ipv6 === 'string' && ipv6 !== '' ? ipv6 : null;
    if ((v4 === null && v6 === null) || typeof email !== 'string') return nullFacts;
    const now = ctx.now();
    // The store bounds the read; when it fails, the runner reports it and every velocity fact is unknown.
    const history = await ctx.velocity.byIp({ ipv4: v4, ipv6: v6, since: windowStarts(now), limit: DISTINCT_SCAN_LIMIT });
    return velocityFacts(email, now, history);
  },
};

export default plugin;

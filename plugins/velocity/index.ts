// IP and device velocity: how many addresses, and how many validations, this project has seen from the
// request's IP, in total and in trailing windows, and how many addresses from its device (the
// fingerprint's device hash). History comes from ctx.velocity (the store), which bounds every read.
import type { CheckOptions, Condition, FactSpec, FactValues, Plugin } from '../../src/engine/plugin.js';
import {
  countFact,
  DEVICE_WINDOWS,
  DISTINCT_SCAN_LIMIT,
  deviceDistinctFact,
  deviceFacts,
  distinctFact,
  LIST_LIMIT,
  velocityFacts,
  WINDOWS,
  type WindowName,
  windowStarts,
} from './windows.js';

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

const ipFacts: Record<string, FactSpec> = {
  has_multiple_emails_in_ip: {
    type: 'boolean',
    description:
      'The ip_duplication check holds: at least its `threshold` distinct addresses (default 3, this one included) came from this IP within its `window` (default total).',
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

const deviceFactSpecs: Record<string, FactSpec> = {
  device: {
    type: 'string',
    description: "Device hash of the request's fingerprint (verify's and intelligence's `fingerprint`); null without one.",
  },
  distinct_emails_from_device: {
    type: 'integer',
    description: 'Distinct addresses validated from this device across the project, this one included; null without a device.',
  },
};
for (const w of DEVICE_WINDOWS) {
  deviceFactSpecs[deviceDistinctFact(w.name)] = {
    type: 'integer',
    description: `Distinct addresses validated from this device in the last ${w.name.replace('_', ' ')}, this one included (exact up to ${DISTINCT_SCAN_LIMIT}); null without a device.`,
  };
}

const facts: Record<string, FactSpec> = { ...ipFacts, ...deviceFactSpecs };

/**
 * Every fact of the plugin, null: each request's facts are a copy of it, filled in. Built from {} key by key, the
 * 25 facts made a dictionary in V8 (an Object.assign of the device's facts onto the IP's, past a dozen keys), 3 KB
 * a request and a hash lookup for each read; a spread copy of a template keeps the template's fast shape.
 */
const NO_FACTS: Readonly<FactValues> = Object.fromEntries(Object.keys(facts).map((name) => [name, null]));

const DUPLICATION_DEFAULTS = { threshold: 3, window: 'total' } as const;

type Duplication = { fact: string; operator: 'greaterThanInclusive'; value: number };
// Keyed by the options object, which a compiled policy keeps for its lifetime: worked out once per policy.
const duplicationByOptions = new WeakMap<CheckOptions, Duplication>();

/** The one definition of "multiple accounts from one IP": the check's condition, and the flag computed from it. */
function ipDuplication(options: CheckOptions): Duplication {
  let duplication = duplicationByOptions.get(options);
  if (!duplication) {
    const window = WINDOWS.find((w) => w.name === options.window)?.name;
    const threshold = typeof options.threshold === 'number' ? options.threshold : DUPLICATION_DEFAULTS.threshold;
    duplication = { fact: window ? distinctFact(window as WindowName) : 'distinct_emails_in_ip', operator: 'greaterThanInclusive', value: threshold };
    duplicationByOptions.set(options, duplication);
  }
  return duplication;
}

/** has_multiple_emails_in_ip, set in `facts` (the request's copy of NO_FACTS): true exactly when ip_duplication (with the policy's options) fires. */
function withDuplicationFlag(facts: FactValues, options: CheckOptions): FactValues {
  const { fact, value } = ipDuplication(options);
  const count = facts[fact];
  facts.has_multiple_emails_in_ip = typeof count === 'number' ? count >= value : null;
  return facts;
}

const plugin: Plugin = {
  id: 'velocity',
  description:
    "Counts the addresses and validations this project has seen from the request's IPv4/IPv6 address, in total and per trailing window, and the addresses from its device.",
  steps: ['ip_duplication'],
  codes: {
    multiple_accounts_detected: { warning: 'several accounts from one IP' },
  },
  facts,
  checks: {
    ip_duplication: {
      description: 'At least `threshold` distinct addresses (this one included) came from the IP within `window`.',
      when: (options): Condition => ipDuplication(options),
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
      defaults: { ...DUPLICATION_DEFAULTS },
    },
  },
  needs: [],
  io: true,
  async run(ctx) {
    const { email, ipv4, ipv6, device } = ctx.input;
    const v4 = typeof ipv4 === 'string' && ipv4 !== '' ? ipv4 : null;
    const v6 = typeof ipv6 === 'string' && ipv6 !== '' ? ipv6 : null;
    const dev = typeof device === 'string' && device !== '' ? device : null;
    const values: FactValues = { ...NO_FACTS };
    if (typeof email !== 'string' || (v4 === null && v6 === null && dev === null)) return values;
    const now = ctx.now();
    // The store bounds each read; when one fails, the runner reports it and every velocity fact is unknown.
    const [byIp, byDevice] = await Promise.all([
      v4 === null && v6 === null ? null : ctx.velocity.byIp({ ipv4: v4, ipv6: v6, since: windowStarts(now), limit: DISTINCT_SCAN_LIMIT }),
      dev === null ? null : ctx.velocity.byDevice({ device: dev, since: [], limit: DISTINCT_SCAN_LIMIT }),
    ]);
    if (byIp) withDuplicationFlag(velocityFacts(email, now, byIp, values), ctx.options('ip_duplication'));
    if (byDevice && dev) deviceFacts(email, dev, now, byDevice, values);
    return values;
  },
};

export default plugin;

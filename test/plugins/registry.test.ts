// The registry's own rules: every plugin is a folder with a test, facts are owned once, each plugin's words
// (steps, codes, checked types) are its own and well formed, and together they hold every word the
// interface promises.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { registry } from '../../plugins/index.js';
import { register } from '../../plugins/register.js';
import { FactCatalog } from '../../src/engine/catalog.js';
import type { Plugin } from '../../src/engine/plugin.js';
import { wordsOf } from '../../src/engine/words.js';
import { packageRoot } from '../../src/paths.js';
import { checksPolicy, testPlugin } from '../support/plugin-tester.js';

// The interface's lists (spec/interface.md: "Validation step identifiers", "Checked type identifiers", the
// error and warning code tables), copied here so that no plugin can drop a word the interface promises.
const INTERFACE_STEPS = [
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
];

const INTERFACE_CHECKED_TYPES = [
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
];

/** The interface's error codes by group, in this project's group names (src/vocabulary.ts CODE_GROUPS). */
const INTERFACE_ERROR_CODES: Readonly<Record<string, readonly string[]>> = {
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
  classification: ['not_in_specific_domains'],
  dns: ['no_mx_records', 'no_a_record'],
  detection: ['domain_typo_detected', 'fraud_pattern_detected'],
  internationalisation: ['email_is_internationalized', 'email_contains_punycode', 'email_is_mixed_script'],
  other: ['local_contains_catch_all_wildcard'],
};

const INTERFACE_WARNING_CODES = ['domain_typo_detected', 'fraud_pattern_detected', 'common_provider_detected', 'vpn_detected', 'multiple_accounts_detected'];

/** A plugin with one check, to be spoiled one word at a time. */
function wordy(id: string, overrides: Partial<Plugin> = {}): Plugin {
  return {
    id,
    description: `A plugin named ${id}.`,
    steps: [`${id}_step`],
    codes: { [`${id}_code`]: { error: 'other' } },
    facts: { [`${id}_fact`]: { type: 'boolean', description: 'A fact of the test.' } },
    checks: { [`${id}_step`]: { description: 'Fires.', when: { fact: `${id}_fact`, operator: 'equal', value: true }, code: `${id}_code` } },
    needs: [],
    run: async () => ({}),
    ...overrides,
  };
}

/** A plugin no line of plugins/index.ts registers: the tester registers it for its own engine and policies. */
const unregistered: Plugin = {
  id: 'shouting',
  description: 'Whether the local part is written in capitals (a test plugin, not registered).',
  steps: ['shouting_local'],
  codes: { local_is_shouting: { warning: 'the local part is in capitals' } },
  facts: { is_shouting: { type: 'boolean', description: 'The local part has letters, all of them capitals.' } },
  checks: {
    shouting_local: { description: 'The local part is in capitals.', when: { fact: 'is_shouting', operator: 'equal', value: true }, code: 'local_is_shouting' },
  },
  needs: ['structure'],
  async run(ctx) {
    const local = await ctx.fact('local_part');
    return typeof local === 'string' ? { is_shouting: /[A-Z]/.test(local) && local === local.toUpperCase() } : {};
  },
};

testPlugin(unregistered, [
  { email: 'JOHN@example.com', facts: { is_shouting: true }, fires: ['shouting_local'] },
  { email: 'John@example.com', facts: { is_shouting: false }, fires: [] },
  { email: 'not an address', facts: { is_shouting: null }, fires: [] },
]);

describe('the plugin tester', () => {
  it('says that a check no registered plugin offers is not registered, rather than blaming the policy', () => {
    expect(() => checksPolicy({ shouting_local: { mode: 'hard' } })).toThrow(
      /^check shouting_local is not registered: no plugin of the tester's registry offers it/,
    );
  });
});

describe('the plugin registry', () => {
  it('is sorted by id and builds a catalog (no fact emitted twice, every need registered)', () => {
    const ids = registry.map((p) => p.id);
    expect(ids).toEqual([...ids].sort());
    expect(() => new FactCatalog(registry)).not.toThrow();
  });

  it('declares every step, checked type and code the interface lists, each code in its table', () => {
    const words = wordsOf(registry);
    expect(words.steps).toEqual(expect.arrayContaining(INTERFACE_STEPS));
    expect(words.checkedTypes).toEqual(expect.arrayContaining(INTERFACE_CHECKED_TYPES));
    const errors = words.errorCodes.map(({ code, group }) => `${group}:${code}`);
    expect(errors).toEqual(expect.arrayContaining(Object.entries(INTERFACE_ERROR_CODES).flatMap(([group, codes]) => codes.map((c) => `${group}:${c}`))));
    expect(words.warningCodes.map(({ code }) => code)).toEqual(expect.arrayContaining(INTERFACE_WARNING_CODES));
  });

  it('refuses words that are malformed, shared or undeclared, naming the plugin', () => {
    expect(() => register([wordy('a'), wordy('b')])).not.toThrow();
    expect(() => register([wordy('a', { steps: ['vpn-ip'], checks: {} })])).toThrow('plugin a: step "vpn-ip" is not snake_case');
    expect(() => register([wordy('a'), wordy('b', { steps: ['a_step', 'b_step'] })])).toThrow('plugin b: step a_step is already a step of plugin a');
    expect(() => register([wordy('a', { steps: ['other'] })])).toThrow('plugin a: check a_step is not one of its steps (other)');
    expect(() => register([wordy('a', { codes: {} })])).toThrow("plugin a: check a_step carries code a_code, which is not in the plugin's codes");
    expect(() => register([wordy('a'), wordy('b', { codes: { a_code: { warning: 'taken' }, b_code: { error: 'other' } } })])).toThrow(
      'plugin b: code a_code is already declared by plugin a',
    );
    expect(() => register([wordy('a', { codes: { a_code: { error: 'other' }, spare: { error: 'other' } } })])).toThrow(
      'plugin a: code spare is declared but no check of the plugin carries it',
    );
    expect(() => register([wordy('a', { codes: { a_code: {} } })])).toThrow('plugin a: code a_code is neither an error');
  });

  describe.each(registry.map((p) => [p.id, p] as const))('plugin %s', (id, plugin) => {
    it('lives in plugins/<id>/ with a README and a test table', () => {
      expect(id).toMatch(/^[a-z][a-z0-9-]*$/);
      expect(existsSync(join(packageRoot, 'plugins', id, 'index.ts'))).toBe(true);
      expect(existsSync(join(packageRoot, 'plugins', id, 'README.md'))).toBe(true);
      expect(existsSync(join(packageRoot, 'plugins', id, `${id}.test.ts`))).toBe(true);
    });

    it('declares snake_case facts with a meaning', () => {
      for (const [name, spec] of Object.entries(plugin.facts)) {
        expect(name).toMatch(/^[a-z][a-z0-9_]*$/);
        expect(spec.description.length, `${id}.${name} has no description`).toBeGreaterThan(5);
      }
    });
  });
});

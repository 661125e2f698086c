// The registry's own rules: every plugin is a folder with a test, facts are owned once, and every
// step, code and checked type a plugin declares is one the interface defines.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { registry } from '../../plugins/index.js';
import { FactCatalog } from '../../src/engine/catalog.js';
import { packageRoot } from '../../src/paths.js';

// From the interface specification (spec/interface.md).
const SPEC_STEPS = `structure local_plus local_dot local_hyphen local_underscore local_numeric local_quoted local_special_chars
local_empty subdomain_wildcard subdomain_single subdomain_double subdomain_triple subdomain_deeply_nested subdomain_hyphenated
subdomain_numeric subdomain_uuid_hash uuid_subdomain random_subdomain deep_nesting domain_ipv4 domain_ipv6 ip_provider
domain_single_label domain_numeric_only internationalized_email punycode_email mixed_script_email catch_all_wildcard
local_part_max_length domain_max_length total_address_length label_max_length tld free_provider_domain role_based_address
disposable_domain known_abuse_domain spam_trap_domain education_domain government_domain specific_domains mx_record
fallback_a_record typo_detection fraud_pattern_detection domain_age deliverability_score domain_health risk_score vpn_ip
ip_duplication`.split(/\s+/);
const SPEC_CHECKED_TYPES = `address_format mx_record disposable_domain role_based_address free_provider_domain known_abuse_domain
spam_trap_domain education_domain government_domain typo_detection fraud_pattern_detection risk_score multiple_emails_in_ip`.split(/\s+/);
const SPEC_CODES = `invalid_address_format local_is_empty invalid_tld local_contains_plus_symbol local_contains_dot_variations
local_contains_hyphen local_contains_underscore local_is_numeric local_is_quoted local_contains_special_chars
local_part_exceeds_max_length subdomain_contains_wildcard subdomain_single subdomain_double subdomain_triple
subdomain_deeply_nested subdomain_contains_hyphen subdomain_is_numeric subdomain_contains_uuid_hash domain_is_ipv4_address
domain_is_ipv6_address domain_is_single_label domain_is_numeric_only domain_exceeds_max_length total_address_exceeds_max_length
label_exceeds_max_length not_in_specific_domains no_mx_records no_a_record domain_typo_detected fraud_pattern_detected
email_is_internationalized email_contains_punycode email_is_mixed_script local_contains_catch_all_wildcard
common_provider_detected vpn_detected multiple_accounts_detected`.split(/\s+/);

describe('the plugin registry', () => {
  it('is sorted by id and builds a catalog (no fact emitted twice, every need registered)', () => {
    const ids = registry.map((p) => p.id);
    expect(ids).toEqual([...ids].sort());
    expect(() => new FactCatalog(registry)).not.toThrow();
  });

  describe.each(registry.map((p) => [p.id, p] as const))('plugin %s', (id, plugin) => {
    it('lives in plugins/<id>/ with a README and a test table', () => {
      expect(id).toMatch(/^[a-z][a-z0-9-]*$/);
      expect(existsSync(join(packageRoot, 'plugins', id, 'index.ts'))).toBe(true);
      expect(existsSync(join(packageRoot, 'plugins', id, 'README.md'))).toBe(true);
      expect(existsSync(join(packageRoot, 'plugins', id, `${id}.test.ts`)) || existsSync(join(packageRoot, 'test', 'plugins', `${id}.test.ts`))).toBe(true);
    });

    it('declares snake_case facts with a meaning', () => {
      for (const [name, spec] of Object.entries(plugin.facts)) {
        expect(name).toMatch(/^[a-z][a-z0-9_]*$/);
        expect(spec.description.length, `${id}.${name} has no description`).toBeGreaterThan(5);
      }
    });

    it("declares only the spec's steps, codes and checked types", () => {
      for (const step of plugin.steps) expect(SPEC_STEPS).toContain(step);
      for (const [name, check] of Object.entries(plugin.checks)) {
        expect(plugin.steps, `${id}: check ${name} is not among its steps`).toContain(name);
        if (check.code) expect(SPEC_CODES).toContain(check.code);
        if (check.checkedType) expect(SPEC_CHECKED_TYPES).toContain(check.checkedType);
      }
    });
  });
});

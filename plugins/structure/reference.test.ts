// The syntax reference suites (reference/README.md): every case of python-email-validator's
// tests/test_syntax.py, and every source of Unicode's IdnaTestV2.txt as a domain, through the default policy. The service's syntax verdict (valid_address_format
// and the checks of the address's form) must equal the reference's, except for the disagreements
// documented in reference/README.md, which must stay disagreements until that file is updated.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FactCatalog } from '../../src/engine/catalog.js';
import { unicodeDomain } from '../../src/host-name.js';
import { policiesDir } from '../../src/paths.js';
import { loadPolicy } from '../../src/policy/load.js';
import { evaluateFor } from '../../test/support/plugin-tester.js';
import { registry } from '../index.js';

interface ReferenceCase {
  section: string;
  input: string;
  class: 'valid_local' | 'invalid_local' | 'valid_domain' | 'invalid_domain' | 'idn';
  valid: boolean;
  ascii_domain?: string;
}

const suite = JSON.parse(readFileSync(fileURLToPath(new URL('reference/python-email-validator.json', import.meta.url)), 'utf8')) as { cases: ReferenceCase[] };
const policy = loadPolicy({ name: 'default', file: join(policiesDir, 'default.yaml') }, new FactCatalog(registry));

/** Checks of the default policy that judge the address's form, as python-email-validator's syntax errors do. */
const FORM_CHECKS = new Set(
  (JSON.parse(readFileSync(fileURLToPath(new URL('reference/form-checks.json', import.meta.url)), 'utf8')) as { checks: string[] }).checks,
);

/** Deliberate disagreements (reference/README.md, "Disagreements"): input → why. */
const KNOWN: Record<string, string> = {
  'me@bad.tld-2': 'a TLD is the tld check’s business (invalid_tld blocks it), not syntax',
  'me@anything.arpa': 'special-use name: not syntax; invalid_tld blocks it',
  'me@valid.invalid': 'special-use name: not syntax; invalid_tld blocks it',
  'me@link.local': 'special-use name: not syntax; invalid_tld blocks it',
  'me@host.localhost': 'special-use name: not syntax; invalid_tld blocks it',
  'me@onion.onion.onion': 'special-use name: not syntax; invalid_tld blocks it',
  'me@test.test.test': 'special-use name: not syntax; invalid_tld blocks it',
  'anything@test': 'valid only in the reference’s test_environment; a single label is blocked here',
  'POSTMASTER@test': 'valid only in the reference’s test_environment; a single label is blocked here',
  'NOT-POSTMASTER@test': 'valid only in the reference’s test_environment; a single label is blocked here',
};

/** The service's syntax verdict, and the ASCII domain it gives (`punycode_value`, else the `domain` fact). */
async function syntaxVerdict(email: string): Promise<{ accepted: boolean; ascii: unknown }> {
  const evaluation = await evaluateFor(policy, { email });
  const valid = await evaluation.fact('valid_address_format');
  const formFired = evaluation.decision.fired.some((v) => v.source === 'check' && FORM_CHECKS.has(v.name));
  return { accepted: valid === true && !formFired, ascii: (await evaluation.fact('punycode_value')) ?? (await evaluation.fact('domain')) };
}

describe('python-email-validator tests/test_syntax.py through the default policy', () => {
  it('holds 264 distinct cases in the five classes', () => {
    expect(new Set(suite.cases.map((c) => c.input)).size).toBe(264);
    const classes: Record<string, number> = {};
    for (const c of suite.cases) classes[c.class] = (classes[c.class] ?? 0) + 1;
    expect(classes).toEqual({ valid_local: 23, invalid_local: 72, valid_domain: 26, invalid_domain: 108, idn: 35 });
    for (const input of Object.keys(KNOWN)) expect(suite.cases.map((c) => c.input)).toContain(input);
  });

  for (const c of suite.cases) {
    const known = KNOWN[c.input];
    const verdict = c.valid ? 'valid' : 'invalid';
    const label = `${c.class}: ${JSON.stringify(c.input)} is ${verdict}${known ? ` for the reference only (${known})` : ''}`;
    it(label, async () => {
      const ours = await syntaxVerdict(c.input);
      expect(ours.accepted).toBe(known ? !c.valid : c.valid);
      if (c.valid && c.class === 'idn') expect(ours.ascii).toBe(c.ascii_domain);
    });
  }
});

/**
 * Unicode's IdnaTestV2.txt 13.0.0, each source as the domain of `a@…`, as python-email-validator 2.3.0
 * judges it (reference/README.md): [domain, valid, ASCII domain or the reference's error, UTS #46 status].
 */
const idnaLines = readFileSync(fileURLToPath(new URL('reference/idna-test-v2.jsonl', import.meta.url)), 'utf8')
  .trimEnd()
  .split('\n')
  .slice(1);
const idnaCases = idnaLines.map((line) => JSON.parse(line) as [string, boolean, string, string]);

/** Which documented reason (reference/README.md, "Disagreements") explains a disagreement on `domain`; null for none. */
function idnaReason(domain: string, referenceValid: boolean): string | null {
  const decoded = unicodeDomain(domain).domain;
  if (referenceValid) {
    if (/\p{Variation_Selector}/u.test(domain)) return 'variation selector (UTS #46 drops it: refused, not repaired)';
    if (/\u115f/u.test(domain)) return 'Hangul filler (UTS #46 drops it: refused, not repaired)';
  } else {
    if (/[\u200c\u200d]/u.test(decoded)) return 'joiner in its CONTEXTJ context (the reference refuses every joiner)';
    if (/\u{32b9a}/u.test(decoded)) return 'a CJK ideograph of Unicode 17 (unassigned in the Unicode 14 data the reference ran with)';
  }
  return null;
}

describe('Unicode IdnaTestV2.txt domains through the default policy', () => {
  it('holds 6225 distinct domains, 258 valid for the reference', () => {
    expect(new Set(idnaCases.map(([domain]) => domain)).size).toBe(6225);
    expect(idnaCases.filter(([, valid]) => valid)).toHaveLength(258);
  });

  // Chunks of 500: one row each would be 6225 tests.
  const CHUNK = 500;
  const disagreements: Record<string, number> = {};
  for (let start = 0; start < idnaCases.length; start += CHUNK) {
    const chunk = idnaCases.slice(start, start + CHUNK);
    it(`cases ${start + 1}-${start + chunk.length}: the reference's verdict and ASCII domain, except the documented disagreements`, async () => {
      const wrong: string[] = [];
      for (const [domain, valid, answer] of chunk) {
        const ours = await syntaxVerdict(`a@${domain}`);
        if (ours.accepted !== valid) {
          // A disagreement must be one of the documented ones.
          const reason = idnaReason(domain, valid);
          if (reason) disagreements[reason] = (disagreements[reason] ?? 0) + 1;
          else wrong.push(`${JSON.stringify(domain)}: reference ${valid ? 'valid' : answer}, service ${ours.accepted ? 'valid' : 'invalid'}`);
        } else if (valid && ours.ascii !== answer) wrong.push(`${JSON.stringify(domain)}: ASCII ${String(ours.ascii)}, reference ${answer}`);
      }
      expect(wrong).toEqual([]);
    });
  }

  // Runs after the chunks above (a file's tests run in order), which count the disagreements.
  it('disagrees on 18 domains, for the four documented reasons', () => {
    expect(disagreements).toEqual({
      'variation selector (UTS #46 drops it: refused, not repaired)': 8,
      'Hangul filler (UTS #46 drops it: refused, not repaired)': 2,
      'joiner in its CONTEXTJ context (the reference refuses every joiner)': 7,
      'a CJK ideograph of Unicode 17 (unassigned in the Unicode 14 data the reference ran with)': 1,
    });
  });
});

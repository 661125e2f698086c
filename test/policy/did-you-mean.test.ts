// Suggestions for a mistyped name: the closest known one, and the known names a message lists (all of
// them when they fit, else the nearest few; never a list cut short).
import { describe, expect, it } from 'vitest';
import { registry } from '../../plugins/index.js';
import { FactCatalog } from '../../src/engine/catalog.js';
import { closestName, KNOWN_NAMES_MAX_CHARS, knownNames, unknownNameHint } from '../../src/policy/did-you-mean.js';
import { PolicyError } from '../../src/policy/errors.js';
import { checkPolicy } from '../../src/policy/load.js';

const FEW = ['email_address', 'ipv4_address', 'show_results'];
/** Forty names of 20 characters: 880 characters listed, past the limit. */
const MANY = Array.from({ length: 40 }, (_, i) => `field_number_${String(i).padStart(2, '0')}_abc`);

describe('closestName', () => {
  it.each([
    ['a swap of two letters', 'emial_address', 'email_address'],
    ['a missing letter', 'show_result', 'show_results'],
    ['a name cut short that only one name starts', 'ipv4_add', 'ipv4_address'],
    ['nothing near', 'colour', null],
  ])('%s', (_label, name, closest) => {
    expect(closestName(name, FEW)).toBe(closest);
  });

  it('answers a name of 100,000 characters at once (its distance to a short name is never computed)', () => {
    expect(closestName('n'.repeat(100_000), FEW)).toBeNull();
  });

  it('answers a policy whose enum value is 200,000 characters (the distance is quadratic: 8,000 took 3.5 s)', () => {
    const text = `version: "1.0"\nchecks:\n  structure: { mode: ${'h'.repeat(200_000)} }\n`;
    let refused: unknown;
    try {
      checkPolicy({ name: 'p', file: 'p.yaml', text }, new FactCatalog(registry));
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(PolicyError);
    expect((refused as PolicyError).problems.map((p) => p.message)).toEqual([expect.stringMatching(/^must be one of: hard, soft/)]);
  });
});

describe('knownNames', () => {
  it('lists every name, in their order, when they fit', () => {
    expect(knownNames('x', FEW)).toBe('known fields: email_address, ipv4_address, show_results');
    expect(knownNames('x', FEW, 'checks')).toBe('known checks: email_address, ipv4_address, show_results');
  });

  it(`names the five nearest, and how many there are, when the whole list passes ${KNOWN_NAMES_MAX_CHARS} characters`, () => {
    expect(MANY.join(', ').length).toBeGreaterThan(KNOWN_NAMES_MAX_CHARS);
    expect(knownNames('field_number_17_abd', MANY)).toBe(
      'known fields (the 5 nearest of 40): field_number_17_abc, field_number_07_abc, field_number_10_abc, field_number_11_abc, field_number_12_abc',
    );
    expect(knownNames('z'.repeat(100_000), MANY)).toMatch(/^known fields \(the 5 nearest of 40\): (field_number_\d\d_abc(, |$)){5}$/);
  });
});

describe('unknownNameHint', () => {
  it('puts the closest name first, then the known ones', () => {
    expect(unknownNameHint('show_result', FEW)).toBe('; did you mean "show_results"? Known fields: email_address, ipv4_address, show_results');
    expect(unknownNameHint('colour', FEW)).toBe('; known fields: email_address, ipv4_address, show_results');
    expect(unknownNameHint('colour', [])).toBe('; no fields are allowed here');
  });
});

// Fingerprint tokens open only in their one canonical spelling and only for their own project, within
// their lifetime (FINGERPRINT_TTL_SECONDS, 86,400 s by default).
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { type DeviceSignals, FingerprintError, FingerprintSealer } from '../../src/service/fingerprint.js';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const NOW = Date.parse('2026-11-24T00:00:00Z');
const signals: DeviceSignals = { address: { ipv4_address: '192.0.2.1', ipv6_address: null }, userAgent: 'UA', acceptLanguage: 'en' };
const sealer = new FingerprintSealer([{ id: 'k1', key: randomBytes(32) }], 86_400);

/** The same bytes with the last character's unused low bits set differently, or null when it has none. */
function flipUnusedBits(token: string): string | null {
  const body = token.split('.')[2] ?? '';
  const unused = { 2: 4, 3: 2 }[(body.length % 4) as 2 | 3];
  if (unused === undefined) return null;
  const last = ALPHABET.indexOf(body.at(-1) ?? '');
  return `${token.slice(0, -1)}${ALPHABET[last ^ 1]}`;
}

describe('FingerprintSealer.open', () => {
  it('opens a token for its own project, and refuses it for another', () => {
    const token = sealer.seal('prj_a', signals, NOW);
    expect(sealer.open(token, 'prj_a', NOW)).toMatchObject({ project: 'prj_a', ip4: '192.0.2.1' });
    expect(() => sealer.open(token, 'prj_b', NOW)).toThrow(/another project/);
  });

  it('lives FINGERPRINT_TTL_SECONDS, 86,400 s by default', () => {
    expect(loadConfig({}).fingerprintTtlSeconds).toBe(86_400);
    const token = sealer.seal('prj_a', signals, NOW);
    expect(sealer.open(token, 'prj_a', NOW + 86_400_000).project).toBe('prj_a');
    expect(() => sealer.open(token, 'prj_a', NOW + 86_401_000)).toThrow(/expired/);
  });

  it("refuses a variant whose last character's unused low bits differ (the same bytes decoded)", () => {
    // Payload lengths 1, 2 and 3 bytes apart: at least two of the three leave unused bits.
    const variants = ['p', 'pp', 'ppp'].flatMap((project) => {
      const token = sealer.seal(project, signals, NOW);
      const variant = flipUnusedBits(token);
      return variant === null ? [] : [{ project, token, variant }];
    });
    expect(variants.length).toBeGreaterThanOrEqual(2);
    for (const { project, token, variant } of variants) {
      expect(variant).not.toBe(token);
      expect(Buffer.from(variant.split('.')[2] ?? '', 'base64url')).toEqual(Buffer.from(token.split('.')[2] ?? '', 'base64url'));
      expect(() => sealer.open(variant, project, NOW)).toThrow(FingerprintError);
      expect(() => sealer.open(variant, project, NOW)).toThrow(/canonical/);
    }
  });

  it.each([
    ['padding appended', (t: string) => `${t}=`],
    ['two padding characters appended', (t: string) => `${t}==`],
    ['a character outside the alphabet inserted', (t: string) => `${t.slice(0, 12)}!${t.slice(12)}`],
    ['a space inserted', (t: string) => `${t.slice(0, 12)} ${t.slice(12)}`],
    ['the standard alphabet for - and _', (t: string) => t.replace(/-/g, '+').replace(/_/g, '/')],
  ])('refuses a non-canonical spelling: %s', (_label, spell) => {
    // A token with both - and _ in its body, so the alphabet swap changes it.
    let token = sealer.seal('prj_a', signals, NOW);
    while (!/[-_]/.test(token.split('.')[2] ?? '')) token = sealer.seal('prj_a', signals, NOW);
    const variant = spell(token);
    expect(variant).not.toBe(token);
    expect(() => sealer.open(variant, 'prj_a', NOW)).toThrow(/canonical/);
  });
});

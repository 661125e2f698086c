// Whether a domain label looks machine-generated (xkqzv7, q8w3ejd) rather than a name people chose
// (gmx, o2, qq, 163, strengths): letter-class rules, linear in the label's length, no word lists.
import { shapeOf } from '../label-shape.js';

/** Shorter labels are brands and initials (x, t, qq, gmx, wp, o2, 163, ibm): never judged. */
export const MIN_LENGTH = 5;
/**
 * A lower-case ASCII label (the registrable domain less its public suffix) that no person would pick:
 * five or more characters, not all digits, not an A-label, four distinct characters or more, and one of
 * - no vowel among four letters or more (xkqzv7, bcdfgh);
 * - digits woven through letters: four letter/digit changes or more with under a quarter vowels
 *   (q8w3ejd), or five with under 40 % (a1b2c3d); club4x4 (three changes) and mp3shop4u (29 %) are names;
 * - a run of six consonants or more with one vowel in eight or fewer (xkqzvbap); German compounds such as
 *   schlachtschiff (one in seven) and abschlussschnitt stay above.
 */
export function looksGenerated(label: string): boolean {
  if (label.length < MIN_LENGTH || label.startsWith('xn--')) return false;
  const s = shapeOf(label);
  if (s.letters === 0 || s.distinct < 4) return false;
  const vowelShare = s.vowels / s.letters;
  if (s.letters >= 4 && s.vowels === 0) return true;
  if (s.digits >= 2 && ((s.switches >= 4 && vowelShare < 0.25) || (s.switches >= 5 && vowelShare < 0.4))) return true;
  return s.consonantRun >= 6 && vowelShare <= 0.125;
}

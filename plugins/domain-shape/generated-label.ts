// Whether a domain label looks machine-generated (xkqzv7, q8w3ejd) rather than a name people chose
// (gmx, o2, qq, 163, strengths): letter-class rules, linear in the label's length, no word lists.

/** Shorter labels are brands and initials (x, t, qq, gmx, wp, o2, 163, ibm): never judged. */
export const MIN_LENGTH = 5;
/** y counts as a vowel: rhythm, gym, lynx read as words. */
const VOWELS = new Set('aeiouy');
const LETTER = /^[a-z]$/;
const DIGIT = /^[0-9]$/;

export interface LabelShape {
  letters: number;
  vowels: number;
  digits: number;
  /** Changes between a letter and a digit, reading left to right (q8w3ejd: 4). */
  switches: number;
  /** Longest run of consonants (y is a vowel). */
  consonantRun: number;
  distinct: number;
}

export function shapeOf(label: string): LabelShape {
  let letters = 0;
  let vowels = 0;
  let digits = 0;
  let switches = 0;
  let run = 0;
  let consonantRun = 0;
  let previous: 'letter' | 'digit' | null = null;
  for (const ch of label) {
    let kind: 'letter' | 'digit' | null = null;
    if (DIGIT.test(ch)) {
      kind = 'digit';
      digits++;
      run = 0;
    } else if (LETTER.test(ch)) {
      kind = 'letter';
      letters++;
      if (VOWELS.has(ch)) {
        vowels++;
        run = 0;
      } else {
        run++;
        if (run > consonantRun) consonantRun = run;
      }
    } else {
      run = 0;
    }
    if (kind !== null) {
      if (previous !== null && kind !== previous) switches++;
      previous = kind;
    }
  }
  return { letters, vowels, digits, switches, consonantRun, distinct: new Set(label).size };
}

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

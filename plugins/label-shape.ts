// What a label or a name is made of, for the checks that tell machine-made strings from chosen ones
// (domain-shape, subdomain, fraud-pattern): its entropy and its letter and digit classes, each in one pass.

const DIGIT = /^[0-9]$/;
const LETTER = /^\p{L}$/u;
const ASCII_LETTER = /^[a-z]$/i;
/** y counts as a vowel: rhythm, gym, lynx read as words. */
const ASCII_VOWEL = /^[aeiouy]$/i;

/** Shannon entropy in bits per character (code point) of `text`; 0 for an empty text. */
export function entropyBits(text: string): number {
  const counts = new Map<string, number>();
  let length = 0;
  for (const ch of text) {
    counts.set(ch, (counts.get(ch) ?? 0) + 1);
    length += 1;
  }
  let bits = 0;
  for (const count of counts.values()) {
    const p = count / length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

export interface LabelShape {
  /** ASCII letters, either case. */
  letters: number;
  /** ASCII vowels among them (y included). */
  vowels: number;
  digits: number;
  /** Changes between a letter (of any script) and a digit, reading left to right (q8w3ejd: 4). */
  switches: number;
  /** Longest run of ASCII consonants. */
  consonantRun: number;
  /** Distinct characters (code points). */
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
    run += 1;
    if (DIGIT.test(ch)) {
      kind = 'digit';
      digits++;
      run = 0;
    } else if (LETTER.test(ch)) {
      kind = 'letter';
      if (ASCII_LETTER.test(ch)) {
        letters++;
        if (ASCII_VOWEL.test(ch)) {
          vowels++;
          run = 0;
        }
      } else run = 0;
    } else run = 0;
    if (run > consonantRun) consonantRun = run;
    if (kind !== null) {
      if (previous !== null && kind !== previous) switches++;
      previous = kind;
    }
  }
  return { letters, vowels, digits, switches, consonantRun, distinct: new Set(label).size };
}

// Traits of one subdomain label: character-class tests and counts, linear in the label's length.
import { entropyBits, shapeOf } from '../label-shape.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const HEX = /^[0-9a-f]+$/i;
const DIGITS = /^[0-9]+$/;
const DIGIT = /[0-9]/;
const HEX_LETTER = /[a-f]/i;

/** Shortest hex run that reads as a hash or token rather than a word (64-bit ids, md5, sha1, sha256). */
const MIN_HASH_LENGTH = 16;

/** A label this long or longer may be judged machine-generated. */
export const RANDOM_MIN_LENGTH = 8;
/** Per-character entropy (bits) a machine-generated label reaches: 8 distinct characters give 3.0. */
export const RANDOM_MIN_ENTROPY = 3;
/** Fewer vowels than this share of the ASCII letters reads as no human word. */
const RANDOM_MAX_VOWEL_SHARE = 0.2;
/** Digit/letter alternations (e.g. x7k) that read as a generated token rather than a name like host01. */
const RANDOM_MIN_CLASS_SWITCHES = 4;

export function isNumericLabel(label: string): boolean {
  return DIGITS.test(label);
}

/** A UUID (8-4-4-4-12) or a hex string of 16+ characters mixing digits and a-f (an md5/sha1-like hash). */
export function isUuidOrHash(label: string): boolean {
  if (UUID.test(label)) return true;
  return label.length >= MIN_HASH_LENGTH && HEX.test(label) && DIGIT.test(label) && HEX_LETTER.test(label);
}

/**
 * Looks machine-generated: long enough, high entropy, and either almost no vowels or digits woven
 * through letters. UUIDs and hashes are left to isUuidOrHash so the two signals do not double count.
 */
export function isRandomLabel(label: string): boolean {
  if ([...label].length < RANDOM_MIN_LENGTH || isUuidOrHash(label)) return false;
  if (entropyBits(label) < RANDOM_MIN_ENTROPY) return false;
  const { letters: asciiLetters, vowels, digits, switches } = shapeOf(label);
  const fewVowels = asciiLetters >= RANDOM_MIN_LENGTH / 2 && vowels / asciiLetters < RANDOM_MAX_VOWEL_SHARE;
  const mixed = digits >= 2 && switches >= RANDOM_MIN_CLASS_SWITCHES;
  return fewVowels || mixed;
}

// Traits of a machine-made mailbox name, each measured in one pass over its characters.

/** Keyboard rows (QWERTY, QWERTZ, AZERTY) whose consecutive keys make a walk, in either direction. */
const ROWS = ['1234567890', 'qwertyuiop', 'asdfghjkl', 'zxcvbnm', 'qwertzuiop', 'yxcvbnm', 'azertyuiop', 'qsdfghjklm', 'wxcvbn'];

/** Ordered pairs of neighbouring keys, left to right ("qw") and right to left ("wq"). */
const FORWARD = new Set<string>();
const BACKWARD = new Set<string>();
for (const row of ROWS) {
  for (let i = 1; i < row.length; i++) {
    FORWARD.add(`${row[i - 1]}${row[i]}`);
    BACKWARD.add(`${row[i]}${row[i - 1]}`);
  }
}

const SEPARATORS = new Set(['.', '_', '-']);
/** y counts as a vowel: names such as "lynn" or "krzysztof" lean on it. */
const VOWELS = new Set(['a', 'e', 'i', 'o', 'u', 'y']);

const isDigit = (ch: string): boolean => ch >= '0' && ch <= '9';
const isAsciiLetter = (ch: string): boolean => ch >= 'a' && ch <= 'z';

/**
 * The mailbox name judged: quotes dropped, plus tag dropped (plus addressing is its own check, and a
 * tag is the user's label, not the account), lower-cased.
 */
export function mailboxName(localPart: string): string {
  let name = localPart;
  if (name.length >= 2 && name.startsWith('"') && name.endsWith('"')) name = name.slice(1, -1);
  const plus = name.indexOf('+');
  if (plus > 0) name = name.slice(0, plus);
  return name.toLowerCase();
}

/** `name` without its separators (., _, -), which split words but carry no randomness. */
export function withoutSeparators(name: string): string {
  let out = '';
  for (const ch of name) if (!SEPARATORS.has(ch)) out += ch;
  return out;
}

/** Longest run of consecutive keys along one keyboard row, either direction ("qwerty" 6, "654321" 6). */
export function longestKeyboardWalk(name: string): number {
  let best = name.length > 0 ? 1 : 0;
  let forward = 1;
  let backward = 1;
  let previous = '';
  for (const ch of name) {
    const pair = previous + ch;
    forward = FORWARD.has(pair) ? forward + 1 : 1;
    backward = BACKWARD.has(pair) ? backward + 1 : 1;
    best = Math.max(best, forward, backward);
    previous = ch;
  }
  return best;
}

/** Longest run of ASCII digits. */
export function longestDigitRun(name: string): number {
  let best = 0;
  let run = 0;
  for (const ch of name) {
    run = isDigit(ch) ? run + 1 : 0;
    best = Math.max(best, run);
  }
  return best;
}

/** Letters and vowels of one separator-delimited word, for the consonant-soup test. */
interface WordCount {
  letters: number;
  vowels: number;
  /** Holds a character other than an ASCII letter, whose vowels we cannot tell. */
  foreign: boolean;
}

const isConsonantSoup = (w: WordCount): boolean => w.letters >= 8 && !w.foreign && w.vowels / w.letters < 0.15;

/**
 * Whether `name` is shaped like a generated token rather than words: digits woven through letters
 * (x7kq2m9…, hex hashes: at least 3 digits and 2 letters, 4 or more letter/digit switches and one
 * switch per 3 characters, separators not counted), or consonant soup (one word between separators of
 * 8 or more letters, all ASCII, under 15 % vowels; "jkl.smith" is two words). A word with a number
 * after it (jane1985) switches once.
 */
export function looksGenerated(name: string): boolean {
  let digits = 0;
  let letters = 0; // every non-digit: a name is letters but for rare specials (!, #, …)
  let switches = 0;
  let previousDigit: boolean | null = null;
  let word: WordCount = { letters: 0, vowels: 0, foreign: false };
  let soup = false;
  for (const ch of name) {
    if (SEPARATORS.has(ch)) {
      soup ||= isConsonantSoup(word);
      word = { letters: 0, vowels: 0, foreign: false };
      continue;
    }
    const digit = isDigit(ch);
    if (digit) digits += 1;
    else {
      letters += 1;
      word.letters += 1;
      if (VOWELS.has(ch)) word.vowels += 1;
      if (!isAsciiLetter(ch)) word.foreign = true;
    }
    if (previousDigit !== null && previousDigit !== digit) switches += 1;
    previousDigit = digit;
  }
  soup ||= isConsonantSoup(word);
  const woven = digits >= 3 && letters >= 2 && switches >= 4 && switches * 3 >= digits + letters;
  return woven || soup;
}

// Unicode scripts of a piece of text, and whether they mix in a way UTS #39 would not allow.

const SKIPPED = /^[\p{Script=Common}\p{Script=Inherited}]$/u;

// UAX #31's recommended scripts plus the limited-use ones with Latin look-alikes (Cherokee, Coptic…),
// most frequent first; anything else is reported as "Other".
const SCRIPT_NAMES = [
  'Latin',
  'Cyrillic',
  'Greek',
  'Han',
  'Hiragana',
  'Katakana',
  'Hangul',
  'Arabic',
  'Hebrew',
  'Thai',
  'Devanagari',
  'Bengali',
  'Tamil',
  'Telugu',
  'Kannada',
  'Malayalam',
  'Gujarati',
  'Gurmukhi',
  'Oriya',
  'Sinhala',
  'Armenian',
  'Georgian',
  'Ethiopic',
  'Khmer',
  'Lao',
  'Myanmar',
  'Tibetan',
  'Thaana',
  'Bopomofo',
  'Mongolian',
  'Syriac',
  'Nko',
  'Tifinagh',
  'Cherokee',
  'Canadian_Aboriginal',
  'Coptic',
  'Lisu',
  'Vai',
  'Yi',
  'Osage',
  'Adlam',
  'Runic',
  'Ogham',
  'Glagolitic',
  'Gothic',
  'Old_Italic',
] as const;

const SCRIPTS = SCRIPT_NAMES.map((name) => ({ name, test: new RegExp(`^\\p{Script=${name}}$`, 'u') }));

// UTS #39 "highly restrictive": Latin may join one East Asian writing system's own scripts.
const ALLOWED_MIXES: readonly (readonly string[])[] = [
  ['Latin', 'Han', 'Hiragana', 'Katakana'],
  ['Latin', 'Han', 'Hangul'],
  ['Latin', 'Han', 'Bopomofo'],
];

function scriptOf(ch: string): string | null {
  if (SKIPPED.test(ch)) return null;
  for (const script of SCRIPTS) if (script.test.test(ch)) return script.name;
  return 'Other';
}

/** Scripts of the characters of `text`, ignoring Common (digits, punctuation) and Inherited (combining marks). */
export function scriptsOf(text: string): Set<string> {
  const found = new Set<string>();
  for (const ch of text) {
    const script = scriptOf(ch);
    if (script !== null) found.add(script);
  }
  return found;
}

/** Two or more scripts that are not one East Asian writing system (optionally with Latin). */
export function isMixed(scripts: ReadonlySet<string>): boolean {
  if (scripts.size < 2) return false;
  return !ALLOWED_MIXES.some((allowed) => [...scripts].every((script) => allowed.includes(script)));
}

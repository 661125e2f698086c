// Host names and the forms of a domain, in one place: the IDNA settings, the ASCII (punycode) and
// Unicode forms, what counts as a host name, and a domain's parents. Plugins and the network layer
// both use it; it imports nothing of the project.
import ipaddr from 'ipaddr.js';
import { LRUCache } from 'lru-cache';
import { toASCII, toUnicode } from 'tr46';

/**
 * UTS #46 nontransitional processing (ß and ς stay), refusing rather than repairing: bidi (RFC 5893),
 * joiner (CONTEXTJ) and hyphen rules checked, and STD3 rules, so that a character whose mapping is not
 * a letter, digit or hyphen (⒈ → "1.", ․, ﹒, _, `) is an error. Lengths are not checked here: they are
 * the length plugin's business.
 */
export const IDNA_OPTIONS = {
  checkBidi: true,
  checkJoiners: true,
  checkHyphens: true,
  useSTD3ASCIIRules: true,
  transitionalProcessing: false,
  verifyDNSLength: false,
} as const;

/** The longest domain name in text form (RFC 1035: 255 octets on the wire). */
export const MAX_DOMAIN_LENGTH = 253;
/** The longest label (RFC 1035). */
export const MAX_LABEL_LENGTH = 63;

export function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}

/** An ACE (punycode) label: `xn--` in any case. */
export function isAceLabel(label: string): boolean {
  return label.length >= 4 && label.slice(0, 4).toLowerCase() === 'xn--';
}

const LDH_LABEL = /^[a-z0-9-]+$/;
/**
 * Invisible characters UTS #46 would silently drop (soft hyphen, zero-width space, variation selectors):
 * refused rather than repaired, as python-email-validator does. The joiners are left to CONTEXTJ.
 */
const IGNORED = /(?![\u200c\u200d])\p{Default_Ignorable_Code_Point}/u;

/**
 * RFC 5892's derived property, the part UTS #46 (which since Unicode 15.1 accepts symbols such as ©
 * and emoji) leaves out: letters, marks and decimal digits are PVALID; symbols, punctuation, spaces,
 * other numbers, format, private-use and unassigned code points are DISALLOWED.
 */
const IDNA2008_LETTER_DIGIT = /^[\p{Ll}\p{Lu}\p{Lo}\p{Lm}\p{Nd}\p{Mn}\p{Mc}]$/u;
/** RFC 5892 §2.6 exceptions that are PVALID although their category is not (U+06FD, U+06FE, U+0F0B, U+3007). */
const PVALID_EXCEPTIONS = new Set([0x06fd, 0x06fe, 0x0f0b, 0x3007]);
/** RFC 5892 §2.6 exceptions that are DISALLOWED although their category is a letter or mark. */
const DISALLOWED_EXCEPTIONS = new Set([0x0640, 0x07fa, 0x302e, 0x302f, 0x3031, 0x3032, 0x3033, 0x3034, 0x3035, 0x303b]);
/**
 * RFC 5892 §2.4 IgnorableBlocks: Combining Diacritical Marks for Symbols, Musical Symbols and Ancient Greek
 * Musical Notation are DISALLOWED, marks (Mn, Mc) included.
 */
const isIgnorableBlock = (cp: number): boolean => (cp >= 0x20d0 && cp <= 0x20ff) || (cp >= 0x1d100 && cp <= 0x1d24f);
/** RFC 5892 §2.9: old Hangul jamo are DISALLOWED (precomposed syllables are the registered form). */
const isOldHangulJamo = (cp: number): boolean => (cp >= 0x1100 && cp <= 0x11ff) || (cp >= 0xa960 && cp <= 0xa97f) || (cp >= 0xd7b0 && cp <= 0xd7ff);
const ZWNJ = 0x200c;
const ZWJ = 0x200d;

/** RFC 5892 Appendix A: the CONTEXTO characters and their rules, judged on the whole label. */
function contextOk(cp: number, chars: readonly string[], i: number): boolean {
  const before = chars[i - 1] ?? '';
  const after = chars[i + 1] ?? '';
  switch (cp) {
    case 0x00b7: // MIDDLE DOT: only between two l (Catalan l·l)
      return before === 'l' && after === 'l';
    case 0x0375: // GREEK KERAIA: before a Greek character
      return /\p{Script=Greek}/u.test(after);
    case 0x05f3: // HEBREW GERESH and GERSHAYIM: after a Hebrew character
    case 0x05f4:
      return /\p{Script=Hebrew}/u.test(before);
    case 0x30fb: // KATAKANA MIDDLE DOT: in a label with Hiragana, Katakana or Han
      return chars.some((c) => c !== '\u30fb' && /[\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Han}]/u.test(c));
    default:
      return true;
  }
}

/** Whether a (Unicode, already UTS #46-mapped) label holds only what IDNA 2008 allows there. */
export function isIdna2008Label(label: string): boolean {
  const chars = [...label];
  let arabicIndic = false;
  let extendedArabicIndic = false;
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i] ?? '';
    const cp = ch.codePointAt(0) ?? 0;
    if (cp === 0x2d || cp === ZWJ || cp === ZWNJ) continue; // hyphen rules and CONTEXTJ: tr46 checked them
    if (cp >= 0x660 && cp <= 0x669) arabicIndic = true;
    if (cp >= 0x6f0 && cp <= 0x6f9) extendedArabicIndic = true;
    if (cp === 0x00b7 || cp === 0x0375 || cp === 0x05f3 || cp === 0x05f4 || cp === 0x30fb) {
      if (!contextOk(cp, chars, i)) return false;
      continue;
    }
    if (PVALID_EXCEPTIONS.has(cp)) continue;
    if (DISALLOWED_EXCEPTIONS.has(cp) || isIgnorableBlock(cp) || isOldHangulJamo(cp) || !IDNA2008_LETTER_DIGIT.test(ch)) return false;
  }
  // CONTEXTO: the two sets of Arabic-Indic digits must not be mixed in one label.
  return !(arabicIndic && extendedArabicIndic);
}

/**
 * One label's A-label (or LDH label), null when IDNA refuses it. The bidi rule is applied per label, as
 * python-email-validator's idna does: an all-LTR label such as `1und1` next to a Hebrew one is fine.
 */
function asciiLabel(label: string): string | null {
  if (IGNORED.test(label)) return null;
  const ascii = toASCII(label, IDNA_OPTIONS);
  // A mapping that introduces a full stop, or that leaves an empty or non-LDH label, is refused.
  if (ascii === null || !LDH_LABEL.test(ascii)) return null;
  if (isAceLabel(label)) {
    // Refuse rather than repair: an ACE label must be the one its own text encodes to.
    if (ascii !== label.toLowerCase()) return null;
  }
  if (!ascii.startsWith('xn--')) return ascii;
  const unicode = toUnicode(ascii, IDNA_OPTIONS);
  return !unicode.error && isIdna2008Label(unicode.domain) ? ascii : null;
}

/**
 * Names (domains or labels) whose IDNA forms are remembered: most traffic repeats a few thousand domains,
 * and UTS #46 processing is dear (docs/decisions/0049). Both forms are pure functions of the name.
 */
const MEMO_NAMES = 10_000;
/** Stands for null in the memo (an LRU cache holds no null). */
const REFUSED = '\u0000refused';
const asciiForms = new LRUCache<string, string>({ max: MEMO_NAMES });
const unicodeForms = new LRUCache<string, Readonly<{ domain: string; error: boolean }>>({ max: MEMO_NAMES });

/**
 * UTS #46 ToASCII of a domain (or label) checked the way python-email-validator checks it (nontransitional
 * processing, then IDNA 2008 validity): null when some label is refused. One root dot is kept.
 */
export function toAsciiForm(domain: string): string | null {
  let form = asciiForms.get(domain);
  if (form === undefined) {
    form = computeAsciiForm(domain) ?? REFUSED;
    asciiForms.set(domain, form);
  }
  return form === REFUSED ? null : form;
}

function computeAsciiForm(domain: string): string | null {
  const rooted = domain.endsWith('.') && domain.length > 1;
  const labels = (rooted ? domain.slice(0, -1) : domain).split('.');
  const out: string[] = [];
  for (const label of labels) {
    const ascii = asciiLabel(label);
    if (ascii === null) return null;
    out.push(ascii);
  }
  return rooted ? `${out.join('.')}.` : out.join('.');
}

/**
 * The ASCII form of a domain: an ASCII domain lower-cased as written (so a bad xn-- label still has a
 * top-level domain), any other its checked UTS #46 ToASCII form (toAsciiForm); null when IDNA refuses it.
 */
export function asciiDomain(domain: string): string | null {
  return isAscii(domain) ? domain.toLowerCase() : toAsciiForm(domain);
}

/** The Unicode form of a domain (xn-- labels decoded); `error` when some label does not decode or is not valid IDNA. */
export function unicodeDomain(domain: string): Readonly<{ domain: string; error: boolean }> {
  let form = unicodeForms.get(domain);
  if (!form) {
    const decoded = domain.split('.').map((label) => toUnicode(label, IDNA_OPTIONS));
    const error = decoded.some((label) => label.error) || toAsciiForm(domain) === null;
    form = Object.freeze({ domain: decoded.map((label) => label.domain).join('.'), error });
    unicodeForms.set(domain, form);
  }
  return form;
}

/** The ideographic, full-width and half-width ideographic full stops, which UTS #46 maps to `.`. */
const IDEOGRAPHIC_FULL_STOPS = /[\u3002\uff0e\uff61]/gu;

/**
 * A domain with its ideographic full stops (`。`, `．`, `｡`) as ASCII dots: UTS #46 maps them before it
 * splits the labels, as browsers and python-email-validator do (`日本語。jp` is `日本語.jp`).
 */
export function withAsciiFullStops(domain: string): string {
  return isAscii(domain) ? domain : domain.replace(IDEOGRAPHIC_FULL_STOPS, '.');
}

/**
 * Lower case one code point at a time: JavaScript's toLowerCase turns a word-final Σ into ς, which
 * UTS #46 does not (Σ → σ always), and ς and σ give different A-labels.
 */
export function lowerCaseName(name: string): string {
  if (isAscii(name)) return name.toLowerCase();
  let out = '';
  for (const ch of name) out += ch.toLowerCase();
  return out;
}

/**
 * What a label may hold: `ldh` letters, digits and hyphens (RFC 952/1123 host names); `dns` also the
 * underscore that DNS names carry (_dmarc); `any` any ASCII character but the dot (what a lookup in a
 * list tolerates: it only has to be a name, not a valid one).
 */
export type LabelRule = 'ldh' | 'dns' | 'any';

const LABEL_CHARACTERS: Record<Exclude<LabelRule, 'any'>, RegExp> = {
  ldh: /^[a-z0-9-]+$/,
  dns: /^[a-z0-9_-]+$/,
};

/**
 * The name lower-cased and without its root dot, or null when it is no host name: empty, longer than
 * 253 characters, an empty label, or (for `ldh` and `dns`) a label over 63 characters or with a character
 * the rule does not allow. An `any` name need only be ASCII without empty labels.
 */
export function hostName(text: string, rule: LabelRule = 'dns'): string | null {
  const name = (text.endsWith('.') ? text.slice(0, -1) : text).toLowerCase();
  if (name.length === 0 || name.length > MAX_DOMAIN_LENGTH) return null;
  if (rule === 'any') return isAscii(name) && !name.startsWith('.') && !name.includes('..') ? name : null;
  const allowed = LABEL_CHARACTERS[rule];
  for (const label of name.split('.')) {
    if (label.length === 0 || label.length > MAX_LABEL_LENGTH || !allowed.test(label)) return null;
  }
  return name;
}

/**
 * A host name that is really an IP address, in any notation a resolver or URL parser would take as one:
 * `1.2.3.4`, `[::1]`, `::1`, `0x7f.1`, `2130706433`, `0177.0.0.1`, `127.1`; also any name whose last
 * label is a number (WHATWG URL parsing treats it as IPv4).
 */
export function isAddressLiteral(host: string): boolean {
  let name = host.toLowerCase();
  if (name.startsWith('[') && name.endsWith(']')) name = name.slice(1, -1);
  if (name.endsWith('.')) name = name.slice(0, -1);
  if (name.includes(':') || ipaddr.isValid(name)) return true;
  const last = name.slice(name.lastIndexOf('.') + 1);
  return /^(0x[0-9a-f]*|[0-9]+)$/.test(last);
}

/** `domain` and every parent of it, down to the top-level label (`a.b.gov.uk`, `b.gov.uk`, `gov.uk`, `uk`). */
export function selfAndParents(domain: string): string[] {
  const names = [domain];
  for (let dot = domain.indexOf('.'); dot >= 0; dot = domain.indexOf('.', dot + 1)) names.push(domain.slice(dot + 1));
  return names;
}

/**
 * `domain`, then each parent of it up to `registrable` (`a.b.example.co.uk`, `b.example.co.uk`,
 * `example.co.uk`); the domain alone when `registrable` is not a suffix of it.
 */
export function domainAndParents(domain: string, registrable: string | null): string[] {
  const names = [domain];
  if (registrable === null || !domain.endsWith(`.${registrable}`)) return names;
  for (let name = domain; name !== registrable; ) {
    name = name.slice(name.indexOf('.') + 1);
    names.push(name);
  }
  return names;
}

// RFC 5321/5322 mailbox syntax with RFC 6531 UTF-8, checked in single left-to-right passes:
// no backtracking regular expressions (one character class tested per character at most), so the
// time is linear in the input whatever its shape.
import { isIPv4, isIPv6 } from 'node:net';
import { isAceLabel, isAscii, lowerCaseName, toAsciiForm, withAsciiFullStops } from '../../src/host-name.js';

export type DomainLiteral = 'ipv4' | 'ipv6';

export interface ParsedAddress {
  /** The whole input is a mailbox (local-part "@" domain) we accept. */
  valid: boolean;
  /** The local part exactly as written (quotes included); null when the input has no '@'. */
  localPart: string | null;
  /** Everything after the separating '@', lower-cased, ideographic full stops as '.'; null when the input has no '@'. */
  domain: string | null;
  /** Kind of the domain when it is a valid address literal. */
  domainLiteral: DomainLiteral | null;
}

const QUOTE = 0x22;
const DOT = 0x2e;
const AT = 0x40;
const HYPHEN = 0x2d;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const IPV6_TAG = 'ipv6:';
/** Longest textual IPv6 address ("ffff:…:255.255.255.255"); longer literals are refused unparsed. */
const MAX_IPV6_TEXT = 45;

/** RFC 5322 atext, ASCII part: letters, digits and ! # $ % & ' * + - / = ? ^ _ ` { | } ~ */
const ATEXT = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || "!#$%&'*+-/=?^_`{|}~".includes(ch)) {
    ATEXT[c] = 1;
  }
}

/** Parses one mailbox. Never throws; comments (CFWS) and surrounding spaces are not accepted. */
export function parseAddress(input: string): ParsedAddress {
  const at = separatorIndex(input);
  if (at < 0) return { valid: false, localPart: null, domain: null, domainLiteral: null };
  const localPart = input.slice(0, at);
  // UTS #46 maps the ideographic full stops to '.' before the labels are split: they separate labels.
  const rawDomain = withAsciiFullStops(input.slice(at + 1));
  const isLiteral = rawDomain.charCodeAt(0) === OPEN_BRACKET;
  const domainLiteral = isLiteral ? addressLiteralKind(rawDomain) : null;
  const domainOk = isLiteral ? domainLiteral !== null : isDomainName(rawDomain);
  return {
    valid: domainOk && isLocalPart(localPart),
    localPart,
    domain: lowerCaseName(rawDomain),
    domainLiteral,
  };
}

/**
 * Index of the last '@' outside a quoted string; when quotes leave none outside (unbalanced
 * quotes), the last '@' of all, so that a local part and a domain exist whenever an '@' does.
 */
function separatorIndex(input: string): number {
  let inQuotes = false;
  let lastOutside = -1;
  for (let i = 0; i < input.length; i++) {
    const c = input.charCodeAt(i);
    if (inQuotes && c === BACKSLASH) i++;
    else if (c === QUOTE) inQuotes = !inQuotes;
    else if (c === AT && !inQuotes) lastOutside = i;
  }
  return lastOutside >= 0 ? lastOutside : input.lastIndexOf('@');
}

/** A combining mark (Mn, Mc, Me) as the first character: it has no base letter of its own. */
const LEADING_MARK = /^\p{M}/u;

function isLocalPart(local: string): boolean {
  // RFC 6532 §3.1: text is in NFC; a decomposed local part would be another mailbox to the server.
  if (!isAscii(local) && local.normalize('NFC') !== local) return false;
  const quoted = local.charCodeAt(0) === QUOTE;
  // A local part (or quoted text) that starts with a combining mark: a defective combining sequence that
  // renders on whatever precedes the address; python-email-validator refuses it too.
  if (LEADING_MARK.test(quoted ? local.slice(1) : local)) return false;
  return quoted ? isQuotedString(local) : isDotAtom(local);
}

/** RFC 5322 dot-atom-text: atext runs joined by single dots. */
function isDotAtom(s: string): boolean {
  let afterDot = true; // a leading dot is refused as a doubled one is
  for (let i = 0; i < s.length; ) {
    const cp = s.codePointAt(i) ?? 0;
    if (cp === DOT) {
      if (afterDot) return false;
      afterDot = true;
    } else if (cp < 128 ? ATEXT[cp] === 1 : isLocalNonAscii(cp)) {
      afterDot = false;
    } else {
      return false;
    }
    i += cp > 0xffff ? 2 : 1;
  }
  return !afterDot;
}

/** RFC 5321 Quoted-string: DQUOTE *(qtextSMTP / quoted-pairSMTP) DQUOTE, qtext widened by RFC 6531. */
function isQuotedString(s: string): boolean {
  for (let i = 1; i < s.length; ) {
    const cp = s.codePointAt(i) ?? 0;
    if (cp === QUOTE) return i === s.length - 1;
    if (cp === BACKSLASH) {
      const escaped = s.charCodeAt(i + 1);
      if (!(escaped >= 0x20 && escaped <= 0x7e)) return false;
      i += 2;
      continue;
    }
    if (!(cp < 128 ? isQtext(cp) : isLocalNonAscii(cp))) return false;
    i += cp > 0xffff ? 2 : 1;
  }
  return false;
}

/** qtextSMTP: printable ASCII and space, except '"' and '\'. */
function isQtext(c: number): boolean {
  return c >= 0x20 && c <= 0x7e && c !== QUOTE && c !== BACKSLASH;
}

/** Dot-separated labels of letters, digits, inner hyphens, or non-ASCII (IDN U-label) characters that IDNA accepts. */
function isDomainName(d: string): boolean {
  let labelLength = 0;
  let lastHyphen = false;
  for (let i = 0; i < d.length; ) {
    const cp = d.codePointAt(i) ?? 0;
    if (cp === DOT) {
      if (labelLength === 0 || lastHyphen) return false;
      labelLength = 0;
    } else if (cp === HYPHEN) {
      if (labelLength === 0) return false;
      labelLength++;
      lastHyphen = true;
    } else if (cp < 128 ? isLetterOrDigit(cp) : isUtf8NonAscii(cp)) {
      labelLength++;
      lastHyphen = false;
    } else {
      return false;
    }
    i += cp > 0xffff ? 2 : 1;
  }
  if (labelLength === 0 || lastHyphen) return false;
  // An internationalised name (Unicode or ACE labels) must also pass IDNA: UTS #46 nontransitional
  // mapping, then IDNA 2008 validity, every label ending as letters, digits and hyphens.
  // So must an ASCII label with hyphens in the 3rd and 4th places (RFC 5891 §4.2.3.1 reserves them).
  return (isAscii(d) && !d.split('.').some((label) => isAceLabel(label) || label.startsWith('--', 2))) || toAsciiForm(d) !== null;
}

/** `[1.2.3.4]` or `[IPv6:…]` (tag case-insensitive); other RFC 5321 general literals are refused. */
function addressLiteralKind(d: string): DomainLiteral | null {
  if (d.length < 2 || d.charCodeAt(d.length - 1) !== CLOSE_BRACKET) return null;
  const inner = d.slice(1, -1);
  if (inner.slice(0, IPV6_TAG.length).toLowerCase() === IPV6_TAG) {
    const address = inner.slice(IPV6_TAG.length);
    // node accepts zone ids ("fe80::1%eth0"); RFC 5321 does not.
    return address.length <= MAX_IPV6_TEXT && !address.includes('%') && isIPv6(address) ? 'ipv6' : null;
  }
  return inner.length <= MAX_IPV6_TEXT && isIPv4(inner) ? 'ipv4' : null;
}

function isLetterOrDigit(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}

/**
 * RFC 6531 UTF8-non-ascii, less what no address should hold: C1 controls, unpaired surrogates
 * (not encodable as UTF-8) and Unicode spaces.
 */
function isUtf8NonAscii(cp: number): boolean {
  if (cp < 0xa0) return false;
  if (cp >= 0xd800 && cp <= 0xdfff) return false;
  return !isUnicodeSpace(cp);
}

/** Letters, marks and numbers: what python-email-validator (and RFC 6531's intent) lets into a local part. */
const LOCAL_NON_ASCII = /^[\p{L}\p{M}\p{N}]$/u;

/**
 * A non-ASCII character of a local part: a letter, mark or number. Symbols (emoji and other So),
 * punctuation, spaces, controls, format characters (Cf: invisible joiners, bidi marks), private-use
 * and unassigned code points are refused: they make addresses that look alike but are not.
 */
function isLocalNonAscii(cp: number): boolean {
  return isUtf8NonAscii(cp) && LOCAL_NON_ASCII.test(String.fromCodePoint(cp));
}

/** Unicode White_Space above U+00A0 inclusive (the ASCII and C1 ones are refused earlier). */
function isUnicodeSpace(cp: number): boolean {
  return cp === 0xa0 || cp === 0x1680 || (cp >= 0x2000 && cp <= 0x200a) || cp === 0x2028 || cp === 0x2029 || cp === 0x202f || cp === 0x205f || cp === 0x3000;
}

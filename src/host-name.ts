// Host names and the forms of a domain, in one place: the IDNA settings, the ASCII (punycode) and
// Unicode forms, what counts as a host name, and a domain's parents. Plugins and the network layer
// both use it; it imports nothing of the project.
import ipaddr from 'ipaddr.js';
import { toASCII, toUnicode } from 'tr46';

/**
 * UTS #46 nontransitional processing with the WHATWG URL settings (ß stays ß, bidi and joiner rules
 * checked). Lengths are not checked here: they are the length plugin's business.
 */
export const IDNA_OPTIONS = {
  checkBidi: true,
  checkJoiners: true,
  checkHyphens: false,
  useSTD3ASCIIRules: false,
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

/**
 * The ASCII form of a domain: an ASCII domain lower-cased as written (so a bad xn-- label still has a
 * top-level domain), any other its UTS #46 ToASCII form; null when IDNA refuses it.
 */
export function asciiDomain(domain: string): string | null {
  return isAscii(domain) ? domain.toLowerCase() : toASCII(domain, IDNA_OPTIONS);
}

/** UTS #46 ToASCII of a domain or label, null when IDNA refuses it (even an ASCII one: a bad xn-- label). */
export function toAsciiForm(domain: string): string | null {
  return toASCII(domain, IDNA_OPTIONS);
}

/** The Unicode form of a domain (xn-- labels decoded); `error` when some label does not decode or is not valid IDNA. */
export function unicodeDomain(domain: string): { domain: string; error: boolean } {
  return toUnicode(domain, IDNA_OPTIONS);
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

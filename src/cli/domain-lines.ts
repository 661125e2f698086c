// The text of a domain list as `email-trust project lists` reads it: one domain per line, `#` starts a
// comment, blank lines are skipped. Each domain is checked and put in the form the checks look up:
// lower case, IDN as punycode (UTS #46 and IDNA 2008, as addresses are), no root dot.
import { hostName, isAddressLiteral, lowerCaseName, toAsciiForm } from '../host-name.js';

export interface RefusedLine {
  /** The file (or `argument`, `stdin`) the line came from. */
  source: string;
  /** 1-based line number (for an argument, its position among the domains given). */
  line: number;
  text: string;
  reason: string;
}

export interface DomainLines {
  /** The domains accepted, in their lookup form, each once, in the order first seen. */
  domains: string[];
  refused: RefusedLine[];
}

/**
 * An ASCII label IDNA would pass through unchanged: letters, digits and hyphens, no hyphen at either end or
 * in the 3rd and 4th places (which also leaves out xn-- labels, checked the slow way).
 */
const PLAIN_LABEL = /^(?!..--)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const NUMERIC_LABEL = /^(0x[0-9a-f]*|[0-9]+)$/;

/** The lookup form of a plain lower-case ASCII domain without the IDNA machinery (a list of 100,000 lines reads in well under a second); null when it is not one. */
function plainDomain(text: string): string | null {
  const name = (text.endsWith('.') ? text.slice(0, -1) : text).toLowerCase();
  if (name.length > 253 || !name.includes('.') || !name.split('.').every((label) => PLAIN_LABEL.test(label))) return null;
  // A numeric last label is what makes an LDH name an address (isAddressLiteral); left to the slow way.
  return NUMERIC_LABEL.test(name.slice(name.lastIndexOf('.') + 1)) ? null : name;
}

/** A domain's lookup form, or why it is refused. */
export function listDomain(text: string): { domain: string } | { reason: string } {
  const plain = plainDomain(text);
  if (plain !== null) return { domain: plain };
  if (/\s/.test(text)) return { reason: 'one domain per line, without spaces' };
  if (text.includes('@')) return { reason: 'a domain, not an address: write what follows the @' };
  if (text.startsWith('*.')) return { reason: 'write the domain without "*.": its subdomains are matched anyway' };
  if (isAddressLiteral(text)) return { reason: 'an IP address, not a domain' };
  const ascii = toAsciiForm(lowerCaseName(text));
  const domain = ascii === null ? null : hostName(ascii, 'ldh');
  if (domain === null)
    return { reason: 'not a valid domain name (letters, digits and hyphens in labels of 1 to 63, at most 253 in all; IDN must be valid IDNA 2008)' };
  if (!domain.includes('.')) return { reason: 'a single label (a top-level domain): list domains under it' };
  return { domain };
}

/** Reads a list's text; `source` names it in the refused lines. */
export function parseDomainLines(text: string, source: string): DomainLines {
  const domains = new Set<string>();
  const refused: RefusedLine[] = [];
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.replace(/#.*$/, '').trim();
    if (line === '') return;
    const parsed = listDomain(line);
    if ('domain' in parsed) domains.add(parsed.domain);
    else refused.push({ source, line: index + 1, text: line, reason: parsed.reason });
  });
  return { domains: [...domains], refused };
}

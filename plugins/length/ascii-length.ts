// Octet lengths of an address's parts as they travel: the local part in UTF-8 (RFC 6531),
// the domain in its ASCII (punycode, UTS #46) form.
import { isAscii, toAsciiForm } from '../../src/host-name.js';

/**
 * Punycode encoding is quadratic in a label's length; a label this long is far past the
 * 63-octet limit in any form, so its raw UTF-8 length is used instead of converting it.
 */
const MAX_CONVERTED_LABEL = 255;

export interface DomainLengths {
  /** Length of the ASCII form of the whole domain. */
  domain: number;
  /** Length of the longest label's ASCII form; null for an address literal ([…]). */
  longestLabel: number | null;
}

export function utf8Length(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

export function domainLengths(domain: string): DomainLengths {
  if (domain.startsWith('[')) return { domain: utf8Length(domain), longestLabel: null };
  let total = 0;
  let longest = 0;
  const labels = domain.split('.');
  for (const label of labels) {
    const length = asciiLabelLength(label);
    total += length;
    if (length > longest) longest = length;
  }
  return { domain: total + labels.length - 1, longestLabel: longest };
}

/** The label's ASCII-form length; its UTF-8 length when it cannot be (or is too long to be) converted. */
function asciiLabelLength(label: string): number {
  if (isAscii(label)) return label.length;
  if (label.length > MAX_CONVERTED_LABEL) return utf8Length(label);
  const ascii = toAsciiForm(label);
  return ascii === null ? utf8Length(label) : ascii.length;
}

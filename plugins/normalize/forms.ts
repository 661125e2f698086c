// The normalised forms of an address, each one transformation of its local part or domain.

/** Providers that ignore dots in the local part; googlemail.com is the same mailbox as gmail.com. */
const DOTLESS_DOMAINS: ReadonlyMap<string, string> = new Map([
  ['gmail.com', 'gmail.com'],
  ['googlemail.com', 'gmail.com'],
]);

export const isQuoted = (localPart: string): boolean => localPart.length >= 2 && localPart.startsWith('"') && localPart.endsWith('"');

/** Unicode lower case in composed form (RFC 6532 asks for NFC), the same in every locale. */
export const lowerCase = (text: string): string => text.toLowerCase().normalize('NFC');

/** The local part without its plus tag; null when it has none (or is quoted, where "+" is literal text). */
export function withoutPlusTag(localPart: string): string | null {
  if (isQuoted(localPart)) return null;
  const plus = localPart.indexOf('+');
  return plus > 0 ? localPart.slice(0, plus) : null;
}

/** gmail.com for gmail.com and googlemail.com; else null. */
export const dotlessProvider = (asciiDomain: string): string | null => DOTLESS_DOMAINS.get(asciiDomain) ?? null;

/** The local part without dots (quoted local parts are left alone). */
export const withoutDots = (localPart: string): string => (isQuoted(localPart) ? localPart : localPart.split('.').join(''));

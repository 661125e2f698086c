// Character traits of a local part, read from the mailbox name the receiving host sees:
// for a quoted local part, the text between the quotes with quoted-pairs unescaped.

export interface LocalPartTraits {
  has_plus_addressing: boolean;
  has_dot_variation: boolean;
  has_hyphen: boolean;
  has_underscore: boolean;
  has_numeric: boolean;
  local_is_numeric: boolean;
  is_quoted: boolean;
  has_special_characters: boolean;
  local_is_empty: boolean;
  has_catch_all_wildcard: boolean;
}

const LETTER = /\p{L}|\p{M}/u;
const DIGIT = /\p{Nd}/u;

export function localPartTraits(localPart: string): LocalPartTraits {
  const quoted = localPart.length >= 2 && localPart.startsWith('"') && localPart.endsWith('"');
  const name = quoted ? unescapeQuoted(localPart.slice(1, -1)) : localPart;
  const traits: LocalPartTraits = {
    has_plus_addressing: false,
    has_dot_variation: false,
    has_hyphen: false,
    has_underscore: false,
    has_numeric: false,
    local_is_numeric: name.length > 0,
    is_quoted: quoted,
    has_special_characters: false,
    local_is_empty: name.length === 0,
    has_catch_all_wildcard: false,
  };
  for (const ch of name) {
    const digit = isDigit(ch);
    if (digit) traits.has_numeric = true;
    else traits.local_is_numeric = false;
    if (ch === '+') traits.has_plus_addressing = true;
    else if (ch === '.') traits.has_dot_variation = true;
    else if (ch === '-') traits.has_hyphen = true;
    else if (ch === '_') traits.has_underscore = true;
    // An apostrophe is part of people's names (O'Brien, D'Angelo), as the hyphen is: not special.
    else if (!digit && !isLetter(ch) && ch !== "'") {
      traits.has_special_characters = true;
      if (ch === '*') traits.has_catch_all_wildcard = true;
    }
  }
  return traits;
}

/** Drops the backslash of each quoted-pair ("a\"b" → a"b). */
function unescapeQuoted(content: string): string {
  if (!content.includes('\\')) return content;
  let out = '';
  for (let i = 0; i < content.length; i++) {
    if (content[i] === '\\' && i + 1 < content.length) i++;
    out += content[i];
  }
  return out;
}

function isLetter(ch: string): boolean {
  if (ch.length === 1 && ch < '\x80') return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
  return LETTER.test(ch);
}

function isDigit(ch: string): boolean {
  if (ch.length === 1 && ch < '\x80') return ch >= '0' && ch <= '9';
  return DIGIT.test(ch);
}

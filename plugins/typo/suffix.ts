// Top-level domain typos on any domain, as mailcheck suggests them: acme.cmo -> acme.com, shop.co.ukk -> shop.co.uk.
import damerauLevenshtein from 'damerau-levenshtein';
import { parse } from 'tldts';

/** As the tld plugin reads the Public Suffix List: ICANN section only, no hostname validation. */
const PARSE_OPTIONS = {
  allowIcannDomains: true,
  allowPrivateDomains: false,
  detectIp: false,
  extractHostname: false,
  validateHostname: false,
} as const;

/** A typed suffix is corrected when it is this many edits (Damerau-Levenshtein) from a common one. */
const MAX_SUFFIX_EDITS = 1;
/** A shorter typed suffix (`acme.c`) is one edit from too many common ones to guess. */
const MIN_TYPED_SUFFIX_LENGTH = 2;

/**
 * Special-use names that are not delegated on purpose (RFC 6761, 6762, 7686, 9476, and ICANN's .internal):
 * an address there is meant as typed, never a slip (`foo.alt` is one edit from `.at`).
 */
const SPECIAL_USE = new Set(['alt', 'example', 'internal', 'invalid', 'local', 'localhost', 'onion', 'test']);

/**
 * Country codes withdrawn from ISO 3166-1 whose ccTLD the root zone no longer holds, or never held: Netherlands
 * Antilles, Burma, Czechoslovakia, East Germany, East Timor, US Minor Outlying Islands, Yugoslavia, Zaire.
 * An address there is an old one, written as it once was: never a slip for a live TLD (`mail.yu` is no `mail.ru`).
 */
const RETIRED = new Set(['an', 'bu', 'cs', 'dd', 'tp', 'um', 'yu', 'zr']);

/** Whether the domain's top-level label is a retired country code (RETIRED). */
export function hasRetiredTld(domain: string): boolean {
  return RETIRED.has(domain.slice(domain.lastIndexOf('.') + 1));
}

/** A correction: keep the first `kept` labels of the domain as typed, then `suffix`. */
export interface SuffixCorrection {
  kept: number;
  suffix: string;
}

/** Whether a top-level label is delegated: in the ICANN section of the Public Suffix List. */
export function isDelegatedTld(tld: string): boolean {
  return parse(`example.${tld}`, PARSE_OPTIONS).isIcann === true;
}

/** Whether the domain ends in an ICANN public suffix (`hotmail.co.za` does, though `.za` alone is none). */
export function hasPublicSuffix(domain: string): boolean {
  return parse(domain, PARSE_OPTIONS).isIcann === true;
}

export class SuffixCorrector {
  private readonly suffixes: string[];

  /** `suffixes`: the common public suffixes a slip is corrected to, most used first (ties go to the earlier). */
  constructor(suffixes: readonly string[]) {
    for (const suffix of suffixes) {
      if (parse(`example.${suffix}`, PARSE_OPTIONS).publicSuffix !== suffix || !isDelegatedTld(suffix))
        throw new Error(`${suffix} is not an ICANN public suffix`);
    }
    this.suffixes = [...suffixes];
  }

  /**
   * The correction of an ASCII domain whose top-level label is not delegated and whose ending is one edit
   * from a common suffix (any number of its last labels: `co.ukk` and `ukk` are both looked at); the fewest
   * edits win, then the more used suffix. Null when the TLD is real, special-use, or nothing is that close,
   * or when the correction would leave no registrable name (`co.ukk` -> `co.uk`).
   */
  correct(domain: string): SuffixCorrection | null {
    const labels = domain.split('.');
    const tld = labels[labels.length - 1] ?? '';
    // The whole domain, not its last label: `.za` alone is no public suffix, `co.za` is (hotmail.co.za is real).
    if (labels.length < 2 || hasPublicSuffix(domain) || SPECIAL_USE.has(tld)) return null;
    let best: { correction: SuffixCorrection; edits: number; rank: number } | null = null;
    for (let kept = 1; kept < labels.length; kept++) {
      const typed = labels.slice(kept).join('.');
      if (typed.length < MIN_TYPED_SUFFIX_LENGTH) continue;
      for (const [rank, suffix] of this.suffixes.entries()) {
        if (Math.abs(typed.length - suffix.length) > MAX_SUFFIX_EDITS) continue;
        const edits = damerauLevenshtein(typed, suffix).steps;
        if (edits > MAX_SUFFIX_EDITS || (best !== null && (edits > best.edits || (edits === best.edits && rank >= best.rank)))) continue;
        if (!parse([...labels.slice(0, kept), suffix].join('.'), PARSE_OPTIONS).domain) continue;
        best = { correction: { kept, suffix }, edits, rank };
      }
    }
    return best?.correction ?? null;
  }
}

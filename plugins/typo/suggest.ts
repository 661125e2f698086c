// Domain typo suggestions: @zootools/email-spell-checker proposes, an edit-distance gate disposes.
import { run as spellCheck } from '@zootools/email-spell-checker';
import damerauLevenshtein from 'damerau-levenshtein';
import { LRUCache } from 'lru-cache';
import { hasPublicSuffix } from './suffix.js';

/** Candidate search (sift3 distance, the library's own; its default thresholds). */
const DOMAIN_THRESHOLD = 2;
const SECOND_LEVEL_THRESHOLD = 2;
const TOP_LEVEL_THRESHOLD = 2;
/** Acceptance (Damerau-Levenshtein with transpositions): one slip in the first label, one in the rest. */
const MAX_LABEL_EDITS = 1;
const MAX_SUFFIX_EDITS = 1;
const MAX_DOMAIN_EDITS = MAX_LABEL_EDITS + MAX_SUFFIX_EDITS;
/** A first label shorter than this is never changed: aim, aol, me, msn, live are one edit from too many real names. */
const MIN_CHANGED_LABEL_LENGTH = 5;

const firstLabel = (domain: string): string => {
  const dot = domain.indexOf('.');
  return dot < 0 ? domain : domain.slice(0, dot);
};
/** The part the library calls the top-level domain: everything after the first label. */
const rest = (domain: string): string => {
  const dot = domain.indexOf('.');
  return dot < 0 ? '' : domain.slice(dot + 1);
};

/** Edits between a and b, or Infinity when their lengths alone rule out `limit`. */
export function edits(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return Infinity;
  return damerauLevenshtein(a, b).steps;
}

/** Domains whose answer is remembered; past this the least recently asked is forgotten. */
const MAX_REMEMBERED = 10_000;

export class TypoSuggester {
  private readonly domains: string[];
  private readonly popular: ReadonlySet<string>;
  private readonly byLabel = new Map<string, string[]>();
  private readonly secondLevel: string[];
  private readonly topLevel: string[];
  /** Longer inputs are more edits away from every popular domain than acceptance allows. */
  private readonly maxLength: number;

  /** `domains`: the popular domains, most used first. */
  constructor(domains: readonly string[]) {
    this.domains = [...domains];
    this.popular = new Set(domains);
    for (const domain of domains) {
      const label = firstLabel(domain);
      const same = this.byLabel.get(label);
      if (same) same.push(domain);
      else this.byLabel.set(label, [domain]);
    }
    this.secondLevel = [...this.byLabel.keys()];
    this.topLevel = [...new Set(domains.map(rest))];
    this.maxLength = Math.max(0, ...domains.map((d) => d.length)) + MAX_DOMAIN_EDITS;
  }

  isPopular(domain: string): boolean {
    return this.popular.has(domain);
  }

  /** The answer for each domain seen lately (boxed: the cache holds no null): sign-ups repeat domains, and a search scans every popular one. */
  private readonly answers = new LRUCache<string, { suggestion: string | null }>({ max: MAX_REMEMBERED });

  /** The popular domain `domain` (lower-case ASCII) is a near miss of, or null. */
  suggest(domain: string): string | null {
    const known = this.answers.get(domain);
    if (known !== undefined) return known.suggestion;
    const suggestion = this.search(domain);
    this.answers.set(domain, { suggestion });
    return suggestion;
  }

  private search(domain: string): string | null {
    if (domain === '' || domain.length > this.maxLength || this.popular.has(domain)) return null;
    const found = spellCheck({
      email: `x@${domain}`,
      domains: this.domains,
      secondLevelDomains: this.secondLevel,
      topLevelDomains: this.topLevel,
      domainThreshold: DOMAIN_THRESHOLD,
      secondLevelThreshold: SECOND_LEVEL_THRESHOLD,
      topLevelThreshold: TOP_LEVEL_THRESHOLD,
    });
    if (!found || !this.popular.has(found.domain)) return null;
    const best = this.closestWithLabel(domain, firstLabel(found.domain));
    return best !== null && this.accepts(domain, best) ? best : null;
  }

  /** Of the popular domains with this first label, the fewest edits from `domain` (ties: the more used). */
  private closestWithLabel(domain: string, label: string): string | null {
    let best: string | null = null;
    let bestEdits = Infinity;
    for (const candidate of this.byLabel.get(label) ?? []) {
      const n = edits(domain, candidate, MAX_DOMAIN_EDITS);
      if (n < bestEdits) [best, bestEdits] = [candidate, n];
    }
    return bestEdits <= MAX_DOMAIN_EDITS ? best : null;
  }

  private accepts(domain: string, suggestion: string): boolean {
    // A single-label input (gmailcom) has no suffix to compare: judge it whole.
    if (!domain.includes('.')) return edits(domain, suggestion, MAX_LABEL_EDITS) <= MAX_LABEL_EDITS;
    const label = firstLabel(suggestion);
    const labelEdits = edits(firstLabel(domain), label, MAX_LABEL_EDITS);
    if (labelEdits > MAX_LABEL_EDITS || (labelEdits > 0 && label.length < MIN_CHANGED_LABEL_LENGTH)) return false;
    // The provider's name under another real country code of the same length (hotmail.dk, gmx.pt): its national domain, not a slip.
    if (labelEdits === 0 && rest(domain).length === rest(suggestion).length && hasPublicSuffix(domain)) return false;
    // A changed name under another real suffix (4mail.cf, zmail.cam) is somebody else's domain, not two slips.
    if (labelEdits > 0 && rest(domain) !== rest(suggestion) && hasPublicSuffix(domain)) return false;
    return edits(rest(domain), rest(suggestion), MAX_SUFFIX_EDITS) <= MAX_SUFFIX_EDITS;
  }
}

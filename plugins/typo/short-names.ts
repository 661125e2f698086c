// Typos of short provider names (aol, msn, gmx, web, qq, 163, mail.ru): one keyboard slip in the name,
// corrected only when exactly one popular domain fits and the typed domain is no known mail domain.

/** A first label shorter than this is a short name: the distance-based search never changes it. */
export const SHORT_LABEL_LENGTH = 5;
/** A typed name shorter than this is left alone: every two-letter .com is a company's (ao.com, ne.com, mw.com). */
const MIN_TYPED_LENGTH = 3;

/** US QWERTY rows; a key's neighbours are the keys beside it and the touching keys of the rows above and below. */
const ROWS = ['1234567890', 'qwertyuiop', 'asdfghjkl', 'zxcvbnm'];

function keyboardNeighbours(): Map<string, Set<string>> {
  const neighbours = new Map<string, Set<string>>();
  ROWS.forEach((row, r) => {
    [...row].forEach((key, c) => {
      // Each row sits half a key right of the one above: above are columns c and c+1, below c-1 and c.
      const around: [number, number][] = [
        [r, c - 1],
        [r, c + 1],
        [r - 1, c],
        [r - 1, c + 1],
        [r + 1, c - 1],
        [r + 1, c],
      ];
      const set = new Set<string>();
      for (const [row2, col2] of around) {
        const other = ROWS[row2]?.[col2];
        if (other !== undefined) set.add(other);
      }
      neighbours.set(key, set);
    });
  });
  return neighbours;
}

const NEIGHBOURS = keyboardNeighbours();
const adjacent = (a: string, b: string): boolean => NEIGHBOURS.get(a)?.has(b) === true;

/**
 * Whether `typed` is `meant` with one slip: a neighbouring key hit instead (wen/web), a key pressed
 * twice or a neighbouring key pressed too (aoll, aokl), a key missed (ao/aol), or two keys swapped (mns/msn).
 */
export function isOneSlip(typed: string, meant: string): boolean {
  if (typed === meant) return false;
  if (typed.length === meant.length) {
    const diff: number[] = [];
    for (let i = 0; i < typed.length && diff.length <= 2; i++) if (typed[i] !== meant[i]) diff.push(i);
    const [i = 0, j] = diff;
    if (diff.length === 1) return adjacent(typed.charAt(i), meant.charAt(i));
    return diff.length === 2 && j === i + 1 && typed[i] === meant[j] && typed[j] === meant[i];
  }
  if (typed.length === meant.length + 1) {
    for (let i = 0; i < typed.length; i++) {
      if (typed.slice(0, i) + typed.slice(i + 1) !== meant) continue;
      const extra = typed.charAt(i);
      const before = typed[i - 1];
      const after = typed[i + 1];
      if ([before, after].some((key) => key !== undefined && (key === extra || adjacent(key, extra)))) return true;
    }
    return false;
  }
  if (typed.length + 1 === meant.length) {
    for (let i = 0; i < meant.length; i++) if (meant.slice(0, i) + meant.slice(i + 1) === typed) return true;
  }
  return false;
}

const split = (domain: string): [string, string] => {
  const dot = domain.indexOf('.');
  return dot < 0 ? [domain, ''] : [domain.slice(0, dot), domain.slice(dot + 1)];
};

export class ShortNameCorrector {
  /** Popular domains by the part after their first label (com, co.uk): a typo keeps its suffix. */
  private readonly bySuffix = new Map<string, { label: string; domain: string }[]>();
  private readonly known: ReadonlySet<string>;

  /** `popular`: the popular domains; `known`: real mail domains one slip from a short popular name. */
  constructor(popular: readonly string[], known: readonly string[]) {
    for (const domain of popular) {
      const [label, suffix] = split(domain);
      const same = this.bySuffix.get(suffix);
      if (same) same.push({ label, domain });
      else this.bySuffix.set(suffix, [{ label, domain }]);
    }
    this.known = new Set(known);
  }

  isKnown(domain: string): boolean {
    return this.known.has(domain);
  }

  /** The popular short-named domain `domain` is one slip from, when it is the only popular domain that fits. */
  correct(domain: string): string | null {
    const [typed, suffix] = split(domain);
    if (suffix === '' || typed.length < MIN_TYPED_LENGTH || typed.length > SHORT_LABEL_LENGTH || this.known.has(domain)) return null;
    // Every popular domain with this suffix counts, long names too: a slip that fits two providers is not corrected.
    const fits = (this.bySuffix.get(suffix) ?? []).filter((target) => isOneSlip(typed, target.label));
    const [only] = fits;
    return fits.length === 1 && only !== undefined && only.label.length < SHORT_LABEL_LENGTH ? only.domain : null;
  }
}

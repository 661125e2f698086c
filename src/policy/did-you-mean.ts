// The known name closest to a mistyped one, for "did you mean …?" in policy problems: the smallest
// Damerau-Levenshtein distance (a swap of two letters is one edit), within a third of the name's length.
// A name is measured only against the known names that could be that close by their length and letters
// (both bound the distance from below): a policy may name a thousand unknown facts, each against every fact.
import damerauLevenshtein from 'damerau-levenshtein';

/** The closest of `known` to `name`, or null when none is near enough to be the one meant. */
export function closestName(name: string, known: Iterable<string>): string | null {
  const limit = Math.max(1, Math.floor(name.length / 3));
  const letters = new Letters(name);
  let best: string | null = null;
  let bestDistance = limit + 1;
  let startingWithName: string | null = null;
  let startingWithNameCount = 0;
  for (const candidate of known) {
    // A whole first word (vpn for vpn_ip) counts however short.
    if ((name.length >= 4 && candidate.startsWith(name)) || candidate.startsWith(`${name}_`)) {
      startingWithNameCount += 1;
      startingWithName = candidate;
    }
    if (Math.abs(candidate.length - name.length) > limit || letters.distanceFrom(candidate) > limit) continue;
    const distance = damerauLevenshtein(name, candidate).steps;
    // Of equally close names, the first in sorted order.
    if (distance < bestDistance || (distance === bestDistance && best !== null && candidate < best)) {
      best = candidate;
      bestDistance = distance;
    }
  }
  if (best !== null) return best;
  // A name cut short (is_free_provider for is_free_provider_domain) is the one it starts, when only one does.
  return startingWithNameCount === 1 ? startingWithName : null;
}

/** `; did you mean "x"?` when a known name is close, else the empty string. */
export function didYouMean(name: string, known: Iterable<string>): string {
  const closest = closestName(name, known);
  return closest === null ? '' : `; did you mean "${closest}"?`;
}

/** The longest list of known names a message carries whole; past it, the nearest few are named instead. */
export const KNOWN_NAMES_MAX_CHARS = 240;
const NEAREST_NAMES = 5;

/**
 * `known fields: a, b, c` with every name of `known` when they fit in KNOWN_NAMES_MAX_CHARS, else
 * `known fields (the 5 nearest of 27): …`, the names closest to `name` first: never a list cut short.
 */
export function knownNames(name: string, known: readonly string[], noun = 'fields'): string {
  const all = known.join(', ');
  if (all.length <= KNOWN_NAMES_MAX_CHARS) return `known ${noun}: ${all}`;
  // The distance costs the square of the longer name; past a known name's length, more of it ranks nothing.
  const probe = name.slice(0, Math.max(...known.map((candidate) => candidate.length)) + 1);
  const nearest = known
    .map((candidate) => ({ candidate, distance: damerauLevenshtein(probe, candidate).steps }))
    .sort((a, b) => a.distance - b.distance || a.candidate.localeCompare(b.candidate))
    .slice(0, NEAREST_NAMES)
    .map((near) => near.candidate);
  return `known ${noun} (the ${nearest.length} nearest of ${known.length}): ${nearest.join(', ')}`;
}

/** `; did you mean "x"? Known fields: …` or `; known fields: …` (knownNames), for a name that is none of `known`. */
export function unknownNameHint(name: string, known: readonly string[], noun = 'fields'): string {
  if (known.length === 0) return `; no ${noun} are allowed here`;
  const hint = didYouMean(name, known);
  const list = knownNames(name, known, noun);
  return hint ? `${hint} ${list[0]?.toUpperCase()}${list.slice(1)}` : `; ${list}`;
}

/**
 * A name's letters as a bag: how many letters of another name it cannot pair up bounds their edit distance
 * from below (an edit changes at most one letter on each side; a swap none). Letters are counted by their
 * code modulo 128: two letters sharing a slot only lower the bound.
 */
class Letters {
  private readonly counts = new Int32Array(128);
  private readonly scratch = new Int32Array(128);

  constructor(private readonly name: string) {
    for (let i = 0; i < name.length; i++) {
      const slot = name.charCodeAt(i) & 127;
      this.counts[slot] = (this.counts[slot] as number) + 1;
    }
  }

  distanceFrom(other: string): number {
    this.scratch.set(this.counts);
    let paired = 0;
    for (let i = 0; i < other.length; i++) {
      const slot = other.charCodeAt(i) & 127;
      const left = this.scratch[slot] as number;
      if (left > 0) {
        this.scratch[slot] = left - 1;
        paired += 1;
      }
    }
    return Math.max(this.name.length, other.length) - paired;
  }
}

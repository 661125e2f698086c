// The known name closest to a mistyped one, for "did you mean …?" in policy problems: the smallest
// Damerau-Levenshtein distance (a swap of two letters is one edit), within a third of the name's length.
import damerauLevenshtein from 'damerau-levenshtein';

/** The closest of `known` to `name`, or null when none is near enough to be the one meant. */
export function closestName(name: string, known: Iterable<string>): string | null {
  const names = [...known].sort();
  const limit = Math.max(1, Math.floor(name.length / 3));
  let best: string | null = null;
  let bestDistance = limit + 1;
  for (const candidate of names) {
    // The distance is at least the difference in length, and costs the square of the longer name: skipped.
    if (Math.abs(candidate.length - name.length) > limit) continue;
    const distance = damerauLevenshtein(name, candidate).steps;
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  if (best !== null) return best;
  // A name cut short (is_free_provider for is_free_provider_domain) is the one it starts, when only one does.
  const longer = name.length >= 4 ? names.filter((candidate) => candidate.startsWith(name)) : [];
  return longer.length === 1 ? (longer[0] as string) : null;
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

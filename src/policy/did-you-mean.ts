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

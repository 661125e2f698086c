// The errors of a run's fact reads.

export class UnknownFactError extends Error {
  override name = 'UnknownFactError';
}

/** A plugin read a fact it may not: not emitted by a plugin it names in `needs`. */
export class UndeclaredNeedError extends Error {
  override name = 'UndeclaredNeedError';
}

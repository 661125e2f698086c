// A bounded in-memory map whose entries expire: least recently used entries go first when it is full.
// A Map keeps insertion order, so re-inserting on a hit makes the first key the least recently used.

interface Entry<V> {
  value: V;
  expiresAt: number;
}

export class ExpiringCache<V> {
  private readonly entries = new Map<string, Entry<V>>();

  constructor(private readonly maxEntries: number) {
    if (!Number.isInteger(maxEntries) || maxEntries < 1) throw new RangeError('maxEntries must be a positive integer');
  }

  get size(): number {
    return this.entries.size;
  }

  /** The value when present and not expired at `now` (it becomes the most recently used); undefined otherwise. */
  get(key: string, now: number): { value: V; expiresAt: number } | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    if (entry.expiresAt <= now) return undefined;
    this.entries.set(key, entry);
    return entry;
  }

  /** Stores `value` until `expiresAt`, evicting the least recently used entry when full. */
  set(key: string, value: V, expiresAt: number): void {
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(key, { value, expiresAt });
  }
}

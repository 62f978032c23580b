// The one bounded in-memory cache. Every cache in the process is bounded by
// entries, and optionally by a total weight (bytes); past a bound the least
// recently stored or used entry goes first. A Map keeps insertion order, so
// recency is just re-inserting on use: no list to maintain. What differs
// between caches (data-version invalidation, validation on read) is a thin
// layer on top, in the cache's own file.

export interface LruOptions<V> {
  /** At most this many entries. */
  maxEntries: number;
  /** At most this total weight, as given by `weigh` (e.g. bytes); unbounded when absent. */
  maxWeight?: number;
  weigh?: (value: V) => number;
}

/** Values are never undefined (undefined means "not cached"). */
export class LruCache<K, V> {
  private readonly map = new Map<K, V>();
  private readonly maxEntries: number;
  private readonly maxWeight: number;
  private readonly weigh: ((value: V) => number) | null;
  private total = 0;

  constructor(options: LruOptions<V>) {
    this.maxEntries = options.maxEntries;
    this.maxWeight = options.maxWeight ?? Infinity;
    this.weigh = options.weigh ?? null;
  }

  /** The value, marked as the most recently used. */
  get(key: K): V | undefined {
    const value = this.map.get(key);
    if (value === undefined) return undefined;
    this.map.delete(key);
    this.map.set(key, value);
    return value;
  }

  /** The value, leaving the order alone (caches that evict by age of storing, and the cheapest lookup). */
  peek(key: K): V | undefined {
    return this.map.get(key);
  }

  has(key: K): boolean {
    return this.map.has(key);
  }

  /** Stores `value` as the newest entry, then drops the oldest while a bound is passed. */
  set(key: K, value: V): void {
    this.delete(key);
    this.map.set(key, value);
    if (this.weigh) this.total += this.weigh(value);
    while (this.map.size > this.maxEntries || this.total > this.maxWeight) {
      const oldest = this.map.keys().next();
      if (oldest.done) break;
      this.delete(oldest.value);
    }
  }

  delete(key: K): boolean {
    if (this.weigh) {
      const value = this.map.get(key);
      if (value === undefined) return false;
      this.total -= this.weigh(value);
    }
    return this.map.delete(key);
  }

  clear(): void {
    this.map.clear();
    this.total = 0;
  }

  /** Oldest first. Deleting the entry being visited is safe. */
  entries(): IterableIterator<[K, V]> {
    return this.map.entries();
  }

  get size(): number {
    return this.map.size;
  }

  /** The total weight held (0 without `weigh`). */
  get weight(): number {
    return this.total;
  }
}

import type { DataVersion } from '../db/data-version.ts';

/** Longest an entry is trusted without a look at the database (writes by another process). */
export const VERSIONED_TTL_MS = 10_000;

interface Entry<V> {
  value: V;
  version: number;
  at: number;
}

/**
 * A bounded Map whose entries count only while the DataVersion they were
 * read at is still current: any write to the watched tables makes them all
 * stale at once, so nothing has to remember to invalidate them. The oldest
 * stored entry goes first when full.
 */
export class VersionedCache<V> {
  private readonly entries = new Map<string, Entry<V>>();

  constructor(
    private readonly version: DataVersion,
    private readonly now: () => number,
    private readonly maxEntries: number,
  ) {}

  /** The cached value, or `load()`'s, remembered when `keep` says so (e.g. not "unknown", which may appear later). */
  get(key: string, load: () => V, keep: (value: V) => boolean = () => true): V {
    const now = this.now();
    const version = this.version.current();
    const hit = this.entries.get(key);
    if (hit) {
      if (hit.version === version && now - hit.at < VERSIONED_TTL_MS) return hit.value;
      this.entries.delete(key);
    }
    // Read before loading: a write during the load leaves the entry already stale, never falsely current.
    const value = load();
    if (keep(value) && this.version.storable()) {
      this.entries.set(key, { value, version, at: now });
      if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    }
    return value;
  }

  get size(): number {
    return this.entries.size;
  }
}

import { LruCache } from '../cache/lru.ts';
import type { ChangeSignal } from './change-signal.ts';

/** Longest an entry is trusted without a look at the database (writes by another process). */
export const VERSIONED_TTL_MS = 10_000;

interface Entry<V> {
  value: V;
  version: number;
  /** Trusted before this moment only (the cache's lifetime, or the entry's own deadline when sooner). */
  until: number;
}

/**
 * A bounded cache (LruCache, by age of storing) whose entries count only while the ChangeSignal they were
 * read at is still current: any write to the watched tables makes them all
 * stale at once, so nothing has to remember to invalidate them. The oldest
 * stored entry goes first when full.
 */
export class VersionedCache<V> {
  private readonly entries: LruCache<string, Entry<V>>;

  constructor(
    private readonly version: ChangeSignal,
    private readonly now: () => number,
    maxEntries: number,
    /** How long an entry is trusted at most (shorter for what must also follow a clock, e.g. the page admission memo). */
    private readonly ttlMs: number = VERSIONED_TTL_MS,
  ) {
    this.entries = new LruCache({ maxEntries });
  }

  /** The cached value, or `load()`'s, remembered when `keep` says so (e.g. not "unknown", which may appear later). */
  get(key: string, load: () => V, keep: (value: V) => boolean = () => true): V {
    const hit = this.peek(key);
    if (hit !== undefined) return hit;
    const value = load();
    if (keep(value)) this.put(key, value);
    return value;
  }

  /** `get` through the storage port: the entry is tagged as the load begins (see `mark`). */
  async getAsync(key: string, load: () => Promise<V>, keep: (value: V) => boolean = () => true): Promise<V> {
    const hit = this.peek(key);
    if (hit !== undefined) return hit;
    const mark = this.mark();
    const value = await load();
    if (keep(value)) this.putSince(mark, key, value);
    return value;
  }

  /**
   * The signal's reading as a load through the storage port begins (null when
   * what it reads must not be kept): an entry tagged with it goes stale if a
   * change lands while the load runs (on another node, say).
   */
  mark(): number | null {
    return this.version.storable() ? this.version.current() : null;
  }

  /** Remembers `value`, loaded since `mark` was taken; not past `deadline` when given (a time rule the value depends on). */
  putSince(mark: number | null, key: string, value: V, deadline = Infinity): void {
    if (mark === null) return;
    const now = this.now();
    const until = Math.min(now + this.ttlMs, deadline);
    if (until > now) this.entries.set(key, { value, version: mark, until });
  }

  /** The value stored under `key` while it is still current, else undefined. */
  peek(key: string): V | undefined {
    const hit = this.entries.peek(key);
    if (!hit) return undefined;
    if (hit.version === this.version.current() && this.now() < hit.until) return hit.value;
    this.entries.delete(key);
    return undefined;
  }

  /**
   * Remembers `value`, read from the database just now, tagged with the
   * current version: reads and writes are synchronous on this connection, so
   * the version after a load (its own writes included) is the one it saw.
   * Not inside a transaction, whose rows may still be rolled back.
   */
  put(key: string, value: V): void {
    this.putSince(this.mark(), key, value);
  }

  get size(): number {
    return this.entries.size;
  }
}

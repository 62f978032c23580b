// Fixed-window counters keyed by class and subject. Memory stays bounded: the
// map is swept of finished windows, and past `maxKeys` the oldest key goes.
import { LruCache } from '../cache/lru.ts';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix time in ms when the current window ends. */
  resetAt: number;
  /** Whole seconds until the window ends (at least 1). */
  retryAfter: number;
}

interface Window {
  start: number;
  count: number;
}

export class RateLimiter {
  private readonly windows: LruCache<string, Window>;
  private lastSweep = 0;

  constructor(
    private readonly enabled: boolean,
    maxKeys = 100_000,
    private readonly now: () => number = Date.now,
  ) {
    this.windows = new LruCache({ maxEntries: maxKeys });
  }

  /** Counts one hit for `key` against `limit` per `windowMs`. */
  hit(key: string, limit: number, windowMs = 60_000): RateDecision {
    const now = this.now();
    const start = now - (now % windowMs);
    if (!this.enabled) return { allowed: true, limit, remaining: limit, resetAt: start + windowMs, retryAfter: 1 };
    this.sweep(now, windowMs);
    let w = this.windows.peek(key);
    if (!w || w.start !== start) {
      w = { start, count: 0 };
      this.windows.set(key, w);
    }
    const resetAt = start + windowMs;
    const retryAfter = Math.max(1, Math.ceil((resetAt - now) / 1000));
    if (w.count >= limit) return { allowed: false, limit, remaining: 0, resetAt, retryAfter };
    w.count++;
    return { allowed: true, limit, remaining: limit - w.count, resetAt, retryAfter };
  }

  private sweep(now: number, windowMs: number): void {
    if (now - this.lastSweep < windowMs) return;
    this.lastSweep = now;
    const current = now - (now % windowMs);
    for (const [key, w] of this.windows.entries()) if (w.start < current) this.windows.delete(key);
  }

  get size(): number {
    return this.windows.size;
  }
}

// Fixed-window counters keyed by class and subject, in this process's
// memory: the rate-limit port's embedded adapter (src/ratelimit/port.ts), and
// the Redis adapter's fallback while Redis cannot be reached. Memory is
// bounded without ever forgetting a live window: finished windows are swept,
// and when the table is full of live ones a new subject is refused (fail
// closed) rather than evicting someone else's count, which would reset it.
// Callers key by principal and resolved resource, never by raw request text,
// so the number of live keys follows the number of real callers; over-long
// keys are hashed anyway.
import { storedKey, windowStart, type RateCounter, type RateDecision } from '../ratelimit/port.ts';

export type { RateDecision } from '../ratelimit/port.ts';

interface Window {
  start: number;
  /** Classes use different windows (a minute, an hour): each window knows when it ends. */
  end: number;
  count: number;
}

const SWEEP_EVERY_MS = 60_000;

export class RateLimiter implements RateCounter {
  private readonly windows = new Map<string, Window>();
  private lastSweep = 0;
  /** A full table is swept at most this often, and reported as often. */
  private lastForced = 0;

  constructor(
    private readonly enabled: boolean,
    private readonly maxKeys = 100_000,
    private readonly now: () => number = Date.now,
    private readonly onFull: () => void = () => {},
  ) {}

  /** Counts one hit for `key` against `limit` per `windowMs`. */
  hit(key: string, limit: number, windowMs = 60_000): RateDecision {
    const now = this.now();
    const start = windowStart(now, windowMs);
    const resetAt = start + windowMs;
    const retryAfter = Math.max(1, Math.ceil((resetAt - now) / 1000));
    if (!this.enabled) return { allowed: true, limit, remaining: limit, resetAt, retryAfter: 1 };
    const k = storedKey(key);
    this.sweep(now, false);
    let w = this.windows.get(k);
    if (!w || w.start !== start) {
      if (!w && this.windows.size >= this.maxKeys && !this.makeRoom(now)) {
        return { allowed: false, limit, remaining: 0, resetAt, retryAfter };
      }
      w = { start, end: resetAt, count: 0 };
      this.windows.set(k, w);
    }
    if (w.count >= limit) return { allowed: false, limit, remaining: 0, resetAt, retryAfter };
    w.count++;
    return { allowed: true, limit, remaining: limit - w.count, resetAt, retryAfter };
  }

  /** A full table: sweep it now (at most once a second), and report when that freed nothing. */
  private makeRoom(now: number): boolean {
    if (now - this.lastForced < 1000) return false;
    this.lastForced = now;
    if (this.sweep(now, true) > 0) return true;
    this.onFull();
    return false;
  }

  /** Drops finished windows (at most once a minute unless forced); answers how many went. */
  private sweep(now: number, force: boolean): number {
    if (!force && now - this.lastSweep < SWEEP_EVERY_MS) return 0;
    this.lastSweep = now;
    let removed = 0;
    for (const [key, w] of this.windows) {
      if (w.end <= now) {
        this.windows.delete(key);
        removed++;
      }
    }
    return removed;
  }

  get size(): number {
    return this.windows.size;
  }
}

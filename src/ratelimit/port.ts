// The rate-limit port: fixed windows keyed by class and subject, counted in
// this process's memory (src/http/ratelimit.ts, the embedded default) or in
// Redis shared by every node (redis-counter.ts, with EASEL_REDIS_URL), so a
// limit of N holds for a caller whatever node their requests land on; and
// concurrency slots the same way (SlotPool). The adapter is chosen once, in
// createContext; callers only see `hit` and `take`.

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix time in ms when the current window ends. */
  resetAt: number;
  /** Whole seconds until the window ends (at least 1). */
  retryAfter: number;
}

export interface RateCounter {
  /**
   * Counts one hit for `key` against `limit` per `windowMs`. In memory the
   * answer is ready at once, a plain value: the runtime pipeline calls this on
   * every request, and the embedded mode must not pay for an await it does
   * not need. Through Redis it is a Promise; callers await only that.
   */
  hit(key: string, limit: number, windowMs?: number): RateDecision | Promise<RateDecision>;
  /** Windows this node holds in memory (through Redis: those counted while Redis could not be reached). */
  readonly size: number;
}

export interface RateCounterOptions {
  /** false: every hit is allowed (EASEL_RATELIMIT_ENABLED=false, for the HTTP classes only). */
  enabled: boolean;
  /** Live windows kept in memory before new subjects are refused (src/http/ratelimit.ts). */
  maxKeys: number;
  /** The memory table is full of live windows. */
  onFull?: () => void;
}

/** Gives a slot back; calling it again does nothing. */
export type SlotRelease = () => void;

/**
 * Concurrency slots (requests in flight) counted in this process's memory or
 * in Redis across every node. A slot taken through Redis is a lease: given
 * back when the request ends, or when `leaseMs` pass (the node died with it).
 */
export interface SlotPool {
  /** A slot under `key` while fewer than `limit` are held, or null. In memory the answer is a plain value. */
  take(key: string, limit: number, leaseMs: number): SlotRelease | null | Promise<SlotRelease | null>;
}

/** The adapter's side of the wiring: counters for each limiter, and a lifecycle for the connection behind them. */
export interface RateLimits {
  readonly kind: 'memory' | 'redis';
  counter(options: RateCounterOptions): RateCounter;
  slots(): SlotPool;
  /** Whether the shared store answers now (always true in memory); /healthz asks. */
  check(): Promise<boolean>;
  start(): Promise<void>;
  stop(): void;
}

/** Longer keys are stored as their hash: a key is never a way to spend memory, here or in Redis. */
export const MAX_KEY_LENGTH = 200;

export function storedKey(key: string): string {
  return key.length > MAX_KEY_LENGTH ? `#${new Bun.CryptoHasher('sha256').update(key).digest('hex')}` : key;
}

/** Where the fixed window holding `now` starts. Every adapter and node cuts windows the same way. */
export function windowStart(now: number, windowMs: number): number {
  return now - (now % windowMs);
}

/** The answer for a window that has seen `count` hits, this one included. */
export function decisionOf(count: number, limit: number, start: number, windowMs: number, now: number): RateDecision {
  const resetAt = start + windowMs;
  const retryAfter = Math.max(1, Math.ceil((resetAt - now) / 1000));
  return { allowed: count <= limit, limit, remaining: Math.max(0, limit - count), resetAt, retryAfter };
}

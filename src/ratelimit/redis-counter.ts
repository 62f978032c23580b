// A limiter counting in Redis, so its windows hold across nodes; its own
// memory table (the embedded adapter) counts whatever Redis cannot. Failing
// over to memory is the choice a user of the product expects: a Redis
// outage must neither answer every request 429 (the service would be down
// for a cache) nor lift the limits (the password gate would be open to
// guessing); each node keeps enforcing the limit on its own, so for the
// outage a caller gets at most the limit on each node. Counts do not move
// between the two: when Redis is back, the window goes on from Redis's count.
import type { RedisClient } from 'bun';
import type { RateLimiter } from '../http/ratelimit.ts';
import { DeadlinePassed, within } from './deadline.ts';
import type { FallbackReason } from './fallback-report.ts';
import { decisionOf, windowStart, type RateCounter, type RateDecision } from './port.ts';
import { countHit } from './redis-window.ts';

/** What the counters of one node share: the connection, and whether to use it now. */
export interface SharedRedis {
  /** The client to count with now, or why not. */
  route(): RedisClient | FallbackReason;
  /** How long a hit waits for Redis before it counts in memory. */
  readonly hitTimeoutMs: number;
  fellBack(reason: FallbackReason, err?: unknown): void;
}

export class RedisRateCounter implements RateCounter {
  constructor(
    private readonly redis: SharedRedis,
    private readonly memory: RateLimiter,
    private readonly now: () => number,
  ) {}

  hit(key: string, limit: number, windowMs = 60_000): RateDecision | Promise<RateDecision> {
    const route = this.redis.route();
    if (typeof route === 'string') return this.inMemory(key, limit, windowMs, route);
    const now = this.now();
    const start = windowStart(now, windowMs);
    return within(countHit(route, key, start, start + windowMs, now), this.redis.hitTimeoutMs).then(
      (count) => decisionOf(count, limit, start, windowMs, now),
      (err: unknown) => this.inMemory(key, limit, windowMs, err instanceof DeadlinePassed ? 'timeout' : 'error', err),
    );
  }

  private inMemory(key: string, limit: number, windowMs: number, reason: FallbackReason, err?: unknown): RateDecision {
    this.redis.fellBack(reason, err);
    return this.memory.hit(key, limit, windowMs);
  }

  get size(): number {
    return this.memory.size;
  }
}

// The Redis adapter's wiring (EASEL_REDIS_URL): one connection for every
// limiter of the node, each limiter a RedisRateCounter over it. A limiter
// switched off (EASEL_RATELIMIT_ENABLED=false) never touches Redis.
import type { RedisClient } from 'bun';
import type { RedisSettings } from '../config.ts';
import type { EventBus } from '../events.ts';
import { RateLimiter } from '../http/ratelimit.ts';
import type { Logger } from '../log.ts';
import { FallbackReport, type FallbackReason } from './fallback-report.ts';
import { MemorySlots } from './memory-slots.ts';
import type { RateCounter, RateCounterOptions, RateLimits, SlotPool } from './port.ts';
import { RedisRateCounter, type SharedRedis } from './redis-counter.ts';
import { RateRedisConnection, START_TIMEOUT_MS } from './redis-connection.ts';
import { RedisSlots } from './redis-slots.ts';

/**
 * Redis answers a hit in well under a millisecond on a working network;
 * past this the request goes on with the node's memory count.
 */
export const HIT_TIMEOUT_MS = 250;
/** After a timeout, hits stay in memory this long before Redis is tried again: one slow request a second, not every one. */
export const BACKOFF_MS = 1_000;

export interface RedisRateLimitsOptions {
  hitTimeoutMs?: number;
  backoffMs?: number;
  startTimeoutMs?: number;
}

export interface RedisRateLimitsDeps {
  now: () => number;
  log: Logger;
  events: EventBus;
}

export class RedisRateLimits implements RateLimits, SharedRedis {
  readonly kind = 'redis';
  readonly hitTimeoutMs: number;
  private readonly backoffMs: number;
  private readonly connection: RateRedisConnection;
  private readonly report: FallbackReport;
  /** performance.now() until which Redis is left alone after a timeout (network time, not the app's clock). */
  private backoffUntil = -Infinity;

  constructor(
    settings: RedisSettings,
    private readonly deps: RedisRateLimitsDeps,
    options: RedisRateLimitsOptions = {},
  ) {
    this.hitTimeoutMs = options.hitTimeoutMs ?? HIT_TIMEOUT_MS;
    this.backoffMs = options.backoffMs ?? BACKOFF_MS;
    this.report = new FallbackReport(deps, settings.display);
    this.connection = new RateRedisConnection(
      settings,
      deps.log,
      {
        connected: () => {
          this.backoffUntil = -Infinity;
          this.report.recovered();
          deps.events.emit('ratelimit.redis-connected', {});
        },
      },
      options.startTimeoutMs ?? START_TIMEOUT_MS,
    );
  }

  counter(options: RateCounterOptions): RateCounter {
    const memory = new RateLimiter(options.enabled, options.maxKeys, this.deps.now, options.onFull);
    return options.enabled ? new RedisRateCounter(this, memory, this.deps.now) : memory;
  }

  slots(): SlotPool {
    return new RedisSlots(this, new MemorySlots());
  }

  route(): RedisClient | FallbackReason {
    if (!this.connection.connected) {
      this.connection.revive();
      return 'unavailable';
    }
    return performance.now() < this.backoffUntil ? 'backing-off' : this.connection.client;
  }

  fellBack(reason: FallbackReason, err?: unknown): void {
    if (reason === 'timeout') this.backoffUntil = performance.now() + this.backoffMs;
    this.report.fellBack(reason, err);
  }

  check(): Promise<boolean> {
    return this.connection.ping();
  }

  start(): Promise<void> {
    return this.connection.start();
  }

  stop(): void {
    this.connection.stop();
  }
}

// The one place the rate-limit adapter is chosen: with EASEL_REDIS_URL every
// node counts in the same Redis windows; without it, this process's memory.
import type { Config } from '../config.ts';
import { MemoryRateLimits } from './memory-limits.ts';
import type { RateLimits } from './port.ts';
import { RedisRateLimits, type RedisRateLimitsDeps } from './redis-limits.ts';

export function rateLimitsFor(config: Pick<Config, 'redis'>, deps: RedisRateLimitsDeps): RateLimits {
  return config.redis ? new RedisRateLimits(config.redis, deps) : new MemoryRateLimits(deps.now);
}

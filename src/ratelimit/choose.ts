// The one place the rate-limit adapter is chosen: this process's memory.
import type { Config } from '../config.ts';
import type { EventBus } from '../events.ts';
import type { Logger } from '../log.ts';
import { MemoryRateLimits } from './memory-limits.ts';
import type { RateLimits } from './port.ts';

export function rateLimitsFor(_config: Pick<Config, 'redis'>, deps: { now: () => number; log: Logger; events: EventBus }): RateLimits {
  return new MemoryRateLimits(deps.now);
}

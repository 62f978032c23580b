// The embedded adapter's wiring: every limiter counts in this process's
// memory, nothing to connect to. A node alone is the whole story.
import { RateLimiter } from '../http/ratelimit.ts';
import { MemorySlots } from './memory-slots.ts';
import type { RateCounter, RateCounterOptions, RateLimits, SlotPool } from './port.ts';

export class MemoryRateLimits implements RateLimits {
  readonly kind = 'memory';

  constructor(private readonly now: () => number) {}

  counter(options: RateCounterOptions): RateCounter {
    return new RateLimiter(options.enabled, options.maxKeys, this.now, options.onFull);
  }

  slots(): SlotPool {
    return new MemorySlots();
  }

  async check(): Promise<boolean> {
    return true;
  }

  async start(): Promise<void> {}

  stop(): void {}
}

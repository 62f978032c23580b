// The rate limits' own Redis connection (EASEL_REDIS_URL), apart from
// realtime's: a hit is on the path of nearly every request and must not wait
// behind realtime's traffic, nor realtime behind it. Commands are never
// queued while disconnected (Bun's offline queue is off): a hit that cannot
// be sent fails at once and the caller counts in memory instead of waiting
// out Bun's reconnection (about 40 s). Bun reconnects a dropped connection
// on its own; once it gives up, the next hit that fails asks again (at most
// every REVIVE_EVERY_MS), so a node outlives any Redis outage.
import { RedisClient } from 'bun';
import type { RedisSettings } from '../config.ts';
import type { Logger } from '../log.ts';
import { within } from './deadline.ts';

/** How long the start waits for Redis before going on without it (hits count in memory until it answers). */
export const START_TIMEOUT_MS = 5_000;
/** How often a connection Bun gave up on is asked for again. */
export const REVIVE_EVERY_MS = 2_000;
/** How long a health probe's PING may take. */
const PING_TIMEOUT_MS = 1_000;

export interface ConnectionHooks {
  /** Connected (at start, or again after losing Redis). */
  connected(): void;
}

export class RateRedisConnection {
  readonly client: RedisClient;
  private stopped = false;
  private reviving: Promise<void> | null = null;
  private lastRevive = -Infinity;

  constructor(
    private readonly settings: RedisSettings,
    private readonly log: Logger,
    hooks: ConnectionHooks,
    private readonly startTimeoutMs = START_TIMEOUT_MS,
  ) {
    this.client = new RedisClient(settings.url, { enableOfflineQueue: false });
    this.client.onconnect = () => {
      if (!this.stopped) hooks.connected();
    };
  }

  /** Connects; a Redis that does not answer is reported, not fatal: hits count in memory until it does. */
  async start(): Promise<void> {
    try {
      await within(this.client.connect(), this.startTimeoutMs);
    } catch (err) {
      this.log.warn('rate limits: Redis does not answer; each node counts in its own memory until it does', {
        redis: this.settings.display,
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }

  get connected(): boolean {
    return this.client.connected;
  }

  /** Asks for the connection again when it is down and nobody asked lately; never waits for it. */
  revive(): void {
    if (this.stopped || this.client.connected || this.reviving) return;
    const now = performance.now();
    if (now - this.lastRevive < REVIVE_EVERY_MS) return;
    this.lastRevive = now;
    this.reviving = this.client
      .connect()
      .catch(() => {})
      .finally(() => {
        this.reviving = null;
      });
  }

  /** Whether Redis answers a PING now (the health probe). */
  async ping(): Promise<boolean> {
    if (!this.client.connected) {
      this.revive();
      return false;
    }
    try {
      return (await within(this.client.send('PING', []), PING_TIMEOUT_MS)) === 'PONG';
    } catch {
      return false;
    }
  }

  stop(): void {
    this.stopped = true;
    this.client.close();
  }
}

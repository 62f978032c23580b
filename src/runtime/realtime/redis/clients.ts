// The two Redis connections of a node (commands, and the subscriber a
// subscribed connection needs for itself). Bun reconnects a dropped client
// on its own, but after its retries (about 40 s) it gives up for good; the
// heartbeat then asks again, so a node outlives a long Redis outage.
import { RedisClient } from 'bun';
import type { Logger } from '../../../log.ts';

/** Makes a client for the URL (tests keep theirs, to cut a node off without a word). */
export type RedisConnect = (url: string) => RedisClient;

export const connectRedis: RedisConnect = (url) => new RedisClient(url);

export class RevivableClient {
  private lost = false;
  private stopped = false;

  constructor(
    readonly client: RedisClient,
    private readonly name: string,
    private readonly log: Logger,
  ) {
    // Bun calls onclose when it gives up (or when closed on purpose), not on each drop it retries.
    client.onclose = () => {
      if (!this.stopped) this.lost = true;
    };
  }

  /** Connects again a client Bun gave up on; a no-op otherwise. */
  async revive(): Promise<void> {
    if (!this.lost || this.stopped) return;
    this.lost = false;
    this.log.warn(`realtime: connecting to Redis again (${this.name})`);
    await this.client.connect();
  }

  close(): void {
    this.stopped = true;
    this.client.close();
  }
}

// What a node says while Redis cannot count its rate-limit hits: every hit
// counted in memory instead is signalled (a metric), but the log gets one
// line a minute at most, with how many hits fell back since the line before:
// an outage at thousands of requests a second must not flood the log.
import type { EventBus, EventMap } from '../events.ts';
import type { Logger } from '../log.ts';

/**
 * Why a hit was counted in this node's memory: `unavailable` (no connection:
 * Redis down, restarting or refusing; nothing was sent), `timeout` (sent, no
 * answer in time), `error` (Redis answered an error, or the connection
 * dropped mid-command), `backing-off` (a timeout moments ago: Redis is left
 * alone for a moment rather than costing every request the wait).
 */
export type FallbackReason = EventMap['ratelimit.fallback']['reason'];

export const REPORT_EVERY_MS = 60_000;

export class FallbackReport {
  private lastLine = -Infinity;
  private unreported = 0;
  private failing = false;

  constructor(
    private readonly deps: { now: () => number; log: Logger; events: EventBus },
    private readonly redis: string,
  ) {}

  fellBack(reason: FallbackReason, err?: unknown): void {
    this.deps.events.emit('ratelimit.fallback', { reason });
    this.failing = true;
    this.unreported++;
    const now = this.deps.now();
    if (now - this.lastLine < REPORT_EVERY_MS) return;
    this.lastLine = now;
    this.deps.log.warn(
      'rate limits: Redis cannot count; each node counts in its own memory until it can (limits hold per node, not across nodes)',
      {
        redis: this.redis,
        reason,
        hits: this.unreported,
        ...(err === undefined ? {} : { error: err instanceof Error ? err.message : String(err) }),
      },
    );
    this.unreported = 0;
  }

  /** Connected again: said once, so the outage has an end in the log. */
  recovered(): void {
    if (!this.failing) return;
    this.failing = false;
    this.deps.log.info('rate limits: counting in Redis again', { redis: this.redis, hitsSinceLastLine: this.unreported });
    this.unreported = 0;
    // The next outage is reported at once, however soon it comes.
    this.lastLine = -Infinity;
  }
}

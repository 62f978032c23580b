// Sends what the outbox holds, off every request's path: a tick runs at once
// after something was recorded (kick) and every TICK_MS; it claims due rows
// one by one (one node wins each), sends, and records the outcome.
import type { Scheduler } from '../clock.ts';
import { KickedLoop } from '../kicked-loop.ts';
import type { EventBus } from '../events.ts';
import type { Lifecycle } from '../lifecycle.ts';
import type { Logger } from '../log.ts';
import { nextAttemptAt } from './backoff.ts';
import type { Mailer } from './mailer.ts';
import type { OutboxStore } from './outbox-store.ts';

const TICK_MS = 15_000;
/** Longer than a send can take (./mailer.ts bounds each phase): a lease outlives only a node that died. */
export const LEASE_MS = 120_000;
const BATCH = 50;
/** Sent and failed rows are kept this long for the admin view. */
const KEEP_MS = 30 * 24 * 3600_000;

export interface OutboxWorkerDeps {
  store: OutboxStore;
  mailer: Mailer;
  node: string;
  now: () => number;
  scheduler: Scheduler;
  events: EventBus;
  log: Logger;
  /** One process on its own database: leases left at start were a dead run's. */
  exclusive: boolean;
}

export class OutboxWorker implements Lifecycle {
  private readonly loop: KickedLoop;

  constructor(private readonly d: OutboxWorkerDeps) {
    this.loop = new KickedLoop({
      scheduler: d.scheduler,
      log: d.log,
      everyMs: TICK_MS,
      name: 'notification outbox',
      tick: (stopped) => this.tick(stopped),
    });
  }

  async start(): Promise<void> {
    if (this.d.exclusive) await this.d.store.releaseAllLeases();
    this.loop.start();
  }

  async stop(): Promise<void> {
    await this.loop.stop();
    this.d.mailer.close();
  }

  /** Runs a tick soon (never in the caller's turn: a request does not wait for mail). */
  kick(): void {
    this.loop.kick();
  }

  private async tick(stopped: () => boolean): Promise<void> {
    const { store, now } = this.d;
    for (const id of await store.due(now(), BATCH)) {
      if (stopped()) return;
      await this.deliver(id);
    }
    await store.prune(now() - KEEP_MS);
  }

  private async deliver(id: string): Promise<void> {
    const { store, mailer, node, now, events, log } = this.d;
    const at = now();
    const row = await store.claim(id, at, at + LEASE_MS, node);
    if (!row) return;
    try {
      await mailer.send(row, row.id);
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err);
      const retryAt = nextAttemptAt(row.createdAt, row.attempts + 1, now());
      await store.markAttemptFailed(row.id, node, now(), error, retryAt);
      log.warn(retryAt === null ? 'notification given up after 24 h' : 'notification not sent; it will be tried again', {
        id: row.id,
        kind: row.kind,
        error,
      });
      events.emit('notifications.attempted', { id: row.id, kind: row.kind, outcome: retryAt === null ? 'failed' : 'retrying' });
      return;
    }
    await store.markSent(row.id, node, now());
    events.emit('notifications.attempted', { id: row.id, kind: row.kind, outcome: 'sent' });
  }
}

// Sends recorded webhook deliveries, off every request's path: a tick runs
// at once after a delivery was recorded (kick) and every TICK_MS; it claims
// due rows one by one (one node wins each, src/db/leased-queue.ts), sends,
// and records the outcome. Retries back off as notification mail does
// (src/notifications/backoff.ts); a hook failing for 24 hours without a
// success is paused and its owner mailed.
import { KickedLoop } from '../kicked-loop.ts';
import { canvasUrl } from '../canvases/url.ts';
import type { Core } from '../foundation.ts';
import type { EgressDeps } from '../connections/upstream.ts';
import type { Lifecycle } from '../lifecycle.ts';
import { nextAttemptAt, RETRY_FOR_MS } from '../notifications/backoff.ts';
import { attempt, signedRequest } from './sender.ts';
import { openSecret } from './secret.ts';
import type { ClaimedDelivery, WebhookStore } from './store.ts';

const TICK_MS = 15_000;
/** Longer than an attempt can take (sender.ts's deadline): a lease outlives only a node that died. */
const LEASE_MS = 60_000;
const BATCH = 50;

export interface WebhookWorkerDeps {
  ctx: Pick<Core, 'sql' | 'now' | 'nodeId' | 'scheduler' | 'log' | 'events' | 'config' | 'canvases'>;
  store: WebhookStore;
  egress: EgressDeps;
  /** A hook was paused: its owner is told (the notifications outbox). */
  onPaused: (e: { canvasId: string; hookId: string; url: string; pausedAt: number }) => Promise<void>;
}

export class WebhookWorker implements Lifecycle {
  private readonly loop: KickedLoop;

  constructor(private readonly d: WebhookWorkerDeps) {
    this.loop = new KickedLoop({
      scheduler: d.ctx.scheduler,
      log: d.ctx.log,
      everyMs: TICK_MS,
      name: 'webhook',
      tick: (stopped) => this.tick(stopped),
    });
  }

  async start(): Promise<void> {
    // One process on its own database: leases left at start were a dead run's.
    if (this.d.ctx.sql.engine === 'sqlite') await this.d.store.releaseAllLeases();
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** Runs a tick soon (never in the caller's turn: a request does not wait for a receiver). */
  kick(): void {
    this.loop.kick();
  }

  private async tick(stopped: () => boolean): Promise<void> {
    for (const id of await this.d.store.due(this.d.ctx.now(), BATCH)) {
      if (stopped()) return;
      await this.deliver(id);
    }
  }

  private async deliver(id: string): Promise<void> {
    const { ctx, store } = this.d;
    const at = ctx.now();
    const d = await store.claim(id, at, at + LEASE_MS, ctx.nodeId);
    if (!d) return;
    try {
      await this.send(d);
    } finally {
      await store.prune(d.hookId);
    }
  }

  private async send(d: ClaimedDelivery): Promise<void> {
    const { ctx, store, egress } = this.d;
    const node = ctx.nodeId;
    const canvas = await ctx.canvases.byId(d.canvasId);
    if (!d.active || !canvas) {
      await store.skip(d, node, ctx.now());
      this.told(d, 'failed');
      return;
    }
    const secret = openSecret(ctx.config.secretKey, d.hookId, d.secret);
    const body =
      `{"id":${JSON.stringify(d.id)},"event":${JSON.stringify(d.event)},` +
      `"canvas":${JSON.stringify({ id: canvas.id, slug: canvas.slug, url: canvasUrl(ctx.config, canvas.slug) })},` +
      `"occurredAt":${JSON.stringify(new Date(d.createdAt).toISOString())},"data":${d.data}}`;
    const outcome =
      secret === null
        ? {
            ok: false as const,
            httpStatus: null,
            durationMs: 0,
            error: 'the signing secret cannot be opened (EASEL_SECRET_KEY changed); replace the hook',
          }
        : await attempt(egress, d.url, signedRequest(secret, d.id, d.event, body, ctx.now()));
    const now = ctx.now();
    if (outcome.ok) {
      await store.markDelivered(d, node, now, outcome.httpStatus, outcome.durationMs);
      this.told(d, 'delivered');
      return;
    }
    const retryAt = nextAttemptAt(d.createdAt, d.attempts + 1, now);
    const failingSince = await store.markFailed(d, node, now, outcome, retryAt);
    ctx.log.warn(retryAt === null ? 'webhook delivery given up' : 'webhook delivery failed; it will be tried again', {
      delivery: d.id,
      hook: d.hookId,
      error: outcome.error,
    });
    if (now - failingSince >= RETRY_FOR_MS && (await store.pause(d.hookId, now))) {
      ctx.log.warn('webhook paused after 24 hours of failures', { hook: d.hookId, canvas: d.canvasId });
      await this.d.onPaused({ canvasId: d.canvasId, hookId: d.hookId, url: d.url, pausedAt: now });
      this.told(d, 'paused');
      return;
    }
    this.told(d, retryAt === null ? 'failed' : 'retrying');
  }

  private told(d: ClaimedDelivery, outcome: 'delivered' | 'retrying' | 'failed' | 'paused'): void {
    this.d.ctx.events.emit('webhooks.attempted', { deliveryId: d.id, hookId: d.hookId, event: d.event, outcome });
  }
}

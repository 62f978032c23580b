// Canvas webhooks: what the event bus reports becomes one delivery row per
// hook that asked for it (recorded before the request that caused it
// answers: the listeners are awaited through emitAndRecord), and the worker
// sends them. Listens on every node; each node's worker sends what it claims.
import type { Core } from '../foundation.ts';
import type { EgressDeps } from '../connections/upstream.ts';
import type { EventMap } from '../events.ts';
import type { Lifecycle } from '../lifecycle.ts';
import type { NotificationsFeature } from '../notifications/feature.ts';
import type { WebhookEvent } from './events.ts';
import { webhookPausedMail } from './paused-mail.ts';
import { WebhookStore } from './store.ts';
import { WebhookService } from './service.ts';
import { WebhookWorker } from './worker.ts';

/** What webhooks use: storage, the clock and timers, the bus they listen on, who owns a canvas, and how they send and mail. */
export interface WebhooksDeps {
  ctx: Pick<Core, 'sql' | 'now' | 'nodeId' | 'scheduler' | 'log' | 'events' | 'config' | 'canvases' | 'instanceSecret' | 'users' | 'audit'>;
  /** Sends go out under the Connections egress rules. */
  egress: EgressDeps;
  /** A paused hook's mail goes to its owner through the outbox. */
  notifications: Pick<NotificationsFeature, 'preferences' | 'send'>;
}

/** Each bus event as the webhook event it is, with its `data` as JSON text (values are stored JSON text already). */
const SOURCES: { [K in keyof EventMap]?: { event: WebhookEvent; data: (e: EventMap[K]) => string } } = {
  'canvas.published': { event: 'deploy.published', data: (e) => JSON.stringify({ versionId: e.versionId }) },
  'submission.created': { event: 'submission.created', data: (e) => submissionData(e) },
  'submission.updated': { event: 'submission.updated', data: (e) => submissionData(e) },
  'submission.deleted': {
    event: 'submission.deleted',
    data: (e) => JSON.stringify({ collection: e.collection, userId: e.userId, count: e.count }),
  },
  'collection.record.created': { event: 'collection.record.created', data: (e) => recordData(e) },
  'collection.record.updated': { event: 'collection.record.updated', data: (e) => recordData(e) },
  'collection.record.deleted': {
    event: 'collection.record.deleted',
    data: (e) => JSON.stringify({ collection: e.collection, recordIds: e.recordIds }),
  },
};

function submissionData(e: EventMap['submission.created']): string {
  const head = JSON.stringify({ collection: e.collection, userId: e.userId, updatedAt: new Date(e.updatedAt).toISOString() });
  return `${head.slice(0, -1)},"value":${e.value}}`;
}

function recordData(e: EventMap['collection.record.created']): string {
  const head = JSON.stringify({
    collection: e.collection,
    recordId: e.recordId,
    authorId: e.authorId,
    updatedAt: new Date(e.updatedAt).toISOString(),
  });
  return `${head.slice(0, -1)},"value":${e.value}}`;
}

export class WebhooksFeature implements Lifecycle {
  private readonly store: WebhookStore;
  /** The management API's view of a canvas's hooks. */
  readonly hooks: WebhookService;
  private readonly worker: WebhookWorker;
  private listening: Array<() => void> = [];

  constructor(private readonly deps: WebhooksDeps) {
    const { ctx, egress, notifications } = deps;
    this.store = new WebhookStore(ctx.sql);
    this.hooks = new WebhookService({ ctx, store: this.store });
    this.worker = new WebhookWorker({
      ctx,
      store: this.store,
      egress,
      onPaused: async (e) => {
        try {
          const mail = await webhookPausedMail(ctx, notifications.preferences, e);
          const recorded = await notifications.send(mail);
          ctx.events.emit('notifications.considered', { kind: 'webhook_paused', outcome: recorded ? 'recorded' : 'skipped' });
        } catch (err) {
          ctx.log.error('a notification could not be recorded', {
            event: 'webhook_paused',
            error: err instanceof Error ? err.message : String(err),
          });
        }
      },
    });
  }

  /** Sends what is due now (tests, after moving the clock). */
  kick(): void {
    this.worker.kick();
  }

  async start(): Promise<void> {
    this.listening = (Object.keys(SOURCES) as Array<keyof EventMap>).map((name) => this.listen(name));
    await this.worker.start();
  }

  async stop(): Promise<void> {
    for (const off of this.listening) off();
    this.listening = [];
    await this.worker.stop();
  }

  private listen<K extends keyof EventMap>(name: K): () => void {
    const { ctx } = this.deps;
    const source = SOURCES[name]!;
    return ctx.events.on(name, async (e) => {
      const canvasId = (e as { canvasId: string }).canvasId;
      // A read first: most writes meet no hook, and then nothing is written.
      if (!(await this.store.wanted(canvasId, source.event))) return;
      if ((await this.store.record(canvasId, source.event, source.data(e), ctx.now())) > 0) this.worker.kick();
    });
  }
}

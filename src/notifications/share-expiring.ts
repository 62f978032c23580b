// "A share you own expires in three days": an hourly scan on every node for
// canvases whose access ends within three days; the outbox's dedupe key
// (canvas and expiry) makes it one message per share, whichever node finds
// it first. A new expiry date is a new share, and gets its own notice.
import type { Cancel } from '../clock.ts';
import type { Core } from '../foundation.ts';
import type { Canvas } from '../canvases/record.ts';
import { canvasUrl } from '../canvases/url.ts';
import type { Lifecycle } from '../lifecycle.ts';
import { compose } from './compose.ts';
import { unsubscribeUrl } from './unsubscribe.ts';
import { ownerWhoWants } from './owner.ts';
import type { OutgoingMail } from './outbox-store.ts';
import type { PreferenceStore } from './preferences.ts';

const AHEAD_MS = 3 * 24 * 3600_000;
const SCAN_EVERY_MS = 3600_000;

export class ShareExpiryScan implements Lifecycle {
  private cancel: Cancel | null = null;

  constructor(
    private readonly ctx: Pick<Core, 'canvases' | 'config' | 'events' | 'instanceSecret' | 'log' | 'now' | 'scheduler' | 'users'>,
    private readonly prefs: PreferenceStore,
    private readonly send: (mail: OutgoingMail | null) => Promise<boolean>,
  ) {}

  start(): void {
    this.cancel = this.ctx.scheduler.interval(SCAN_EVERY_MS, () => void this.scan());
  }

  stop(): void {
    this.cancel?.();
    this.cancel = null;
  }

  /** One pass; resolves with how many notices it recorded. */
  async scan(): Promise<number> {
    const now = this.ctx.now();
    let recorded = 0;
    try {
      for (const canvas of await this.ctx.canvases.expiringBetween(now, now + AHEAD_MS)) {
        if (await this.send(await this.mailFor(canvas))) recorded++;
      }
    } catch (err) {
      this.ctx.log.warn('the share-expiry scan failed', { error: err instanceof Error ? err.message : String(err) });
    }
    this.ctx.events.emit('notifications.share-scan', { recorded });
    return recorded;
  }

  private async mailFor(canvas: Canvas): Promise<OutgoingMail | null> {
    const to = await ownerWhoWants(this.ctx, canvas, (ownerId) => this.prefs.wants(ownerId, 'share_expiring'));
    if (canvas.expiresAt === null || !to) return null;
    const { owner } = to;
    const when = new Date(canvas.expiresAt).toUTCString();
    return {
      kind: 'share_expiring',
      recipient: owner.email,
      dedupeKey: `share_expiring:${canvas.id}:${canvas.expiresAt}`,
      ...compose({
        subject: `"${canvas.title}" stops being shared on ${when}`,
        paragraphs: [
          `Your canvas "${canvas.title}" is set to expire on ${when}. After that its visitors are refused. To keep it open, change or clear the expiry on the canvas's page.`,
        ],
        link: { label: 'The canvas', url: canvasUrl(this.ctx.config, canvas.slug) },
        footer: `You get this because you own this canvas. Choose which emails you get in the dashboard: ${this.ctx.config.baseUrl}/.`,
        unsubscribe: unsubscribeUrl(this.ctx.config, this.ctx.instanceSecret, { userId: owner.id, kind: 'share_expiring' }),
      }),
    };
  }
}

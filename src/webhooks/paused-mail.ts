// "Your webhook was paused": to the canvas's owner when one of its hooks
// failed for 24 hours without a success, unless they turned webhook_paused off.
import type { Core } from '../foundation.ts';
import { compose } from '../notifications/compose.ts';
import { ownerWhoWants } from '../notifications/owner.ts';
import type { OutgoingMail } from '../notifications/outbox-store.ts';
import type { PreferenceStore } from '../notifications/preferences.ts';
import { unsubscribeUrl } from '../notifications/unsubscribe.ts';

export async function webhookPausedMail(
  ctx: Pick<Core, 'config' | 'canvases' | 'instanceSecret' | 'users'>,
  prefs: PreferenceStore,
  e: { canvasId: string; hookId: string; url: string; pausedAt: number },
): Promise<OutgoingMail | null> {
  const to = await ownerWhoWants(ctx, e.canvasId, (ownerId) => prefs.wants(ownerId, 'webhook_paused'));
  if (!to) return null;
  const { canvas, owner } = to;
  return {
    kind: 'webhook_paused',
    recipient: owner.email,
    dedupeKey: `webhook_paused:${e.hookId}:${e.pausedAt}`,
    ...compose({
      subject: `A webhook of "${canvas.title}" was paused`,
      paragraphs: [
        `Deliveries to ${e.url} failed for 24 hours without one success, so this webhook of your canvas "${canvas.title}" is paused: nothing more is sent to it.`,
        'Its last deliveries and their errors are on the canvas page (Webhooks). Once the receiver works again, turn the hook back on there.',
      ],
      link: { label: 'See the canvas', url: `${ctx.config.baseUrl}/#/canvas/${encodeURIComponent(canvas.id)}` },
      footer: `You get this because you own this canvas. Choose which emails you get in the dashboard: ${ctx.config.baseUrl}/.`,
      unsubscribe: unsubscribeUrl(ctx.config, ctx.instanceSecret, { userId: owner.id, kind: 'webhook_paused' }),
    }),
  };
}

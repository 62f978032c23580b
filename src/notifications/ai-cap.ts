// "Your canvas used up its monthly AI budget", to its owner, once per canvas
// and month (the outbox drops a second message with the same key).
import type { Core } from '../foundation.ts';
import type { EventMap } from '../events.ts';
import { compose } from './compose.ts';
import { ownerWhoWants } from './owner.ts';
import type { OutgoingMail } from './outbox-store.ts';
import type { PreferenceStore } from './preferences.ts';
import { unsubscribeUrl } from './unsubscribe.ts';

export async function aiCapMail(
  ctx: Pick<Core, 'canvases' | 'config' | 'instanceSecret' | 'users'>,
  prefs: PreferenceStore,
  e: EventMap['ai.canvas-cap-reached'],
): Promise<OutgoingMail | null> {
  const to = await ownerWhoWants(ctx, e.canvasId, (ownerId) => prefs.wants(ownerId, 'ai_cap'));
  if (!to) return null;
  const { canvas, owner } = to;
  return {
    kind: 'ai_cap',
    recipient: owner.email,
    dedupeKey: `ai_cap:${canvas.id}:${e.month}`,
    ...compose({
      subject: `"${canvas.title}" used up its AI budget for ${e.month}`,
      paragraphs: [
        `AI on your canvas "${canvas.title}" reached its monthly budget of ${e.capUsd} USD. Its visitors' AI requests are refused until the budget resets on the 1st (UTC), or an admin raises it.`,
      ],
      link: { label: 'See the canvas', url: `${ctx.config.baseUrl}/#/canvas/${encodeURIComponent(canvas.id)}` },
      footer: `You get this because you own this canvas. Choose which emails you get in the dashboard: ${ctx.config.baseUrl}/.`,
      unsubscribe: unsubscribeUrl(ctx.config, ctx.instanceSecret, { userId: owner.id, kind: 'ai_cap' }),
    }),
  };
}

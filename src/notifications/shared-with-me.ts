// "You were added to a canvas": who added you, which canvas, its address, your role.
import type { Core } from '../foundation.ts';
import { canvasUrl } from '../canvases/url.ts';
import type { EventMap } from '../events.ts';
import { compose } from './compose.ts';
import type { OutgoingMail } from './outbox-store.ts';
import type { PreferenceStore } from './preferences.ts';
import { unsubscribeUrl } from './unsubscribe.ts';

export async function sharedWithMeMail(
  ctx: Pick<Core, 'canvases' | 'config' | 'instanceSecret' | 'users'>,
  prefs: PreferenceStore,
  e: EventMap['canvas.member-added'],
): Promise<OutgoingMail | null> {
  if (!(await prefs.wants(e.userId, 'shared_with_me'))) return null;
  const [person, by, canvas] = await Promise.all([ctx.users.byId(e.userId), ctx.users.byId(e.byUserId), ctx.canvases.byId(e.canvasId)]);
  if (!person || !by || !canvas || !person.active) return null;
  const who = by.name && by.name !== by.email ? `${by.name} (${by.email})` : by.email;
  const what = e.role === 'editor' ? 'an editor' : 'a viewer';
  return {
    kind: 'shared_with_me',
    recipient: person.email,
    ...compose({
      subject: `${who} shared "${canvas.title}" with you`,
      paragraphs: [`${who} added you to the canvas "${canvas.title}" as ${what}.`],
      link: { label: 'Open the canvas', url: canvasUrl(ctx.config, canvas.slug) },
      footer: `You get this because you were added to a canvas on ${ctx.config.baseUrl}. Choose which emails you get in the dashboard: ${ctx.config.baseUrl}/.`,
      unsubscribe: unsubscribeUrl(ctx.config, ctx.instanceSecret, { userId: person.id, kind: 'shared_with_me' }),
    }),
  };
}

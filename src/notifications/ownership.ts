// "You now own …" to the new owner and "… now belongs to …" to the previous
// one, each when they want `ownership` mail and their account is active.
import type { User } from '../auth/users.ts';
import type { Core } from '../foundation.ts';
import type { EventMap } from '../events.ts';
import { compose } from './compose.ts';
import type { OutgoingMail } from './outbox-store.ts';
import type { PreferenceStore } from './preferences.ts';
import { unsubscribeUrl } from './unsubscribe.ts';

const who = (u: User) => (u.name && u.name !== u.email ? `${u.name} (${u.email})` : u.email);

export async function ownershipMails(
  ctx: Pick<Core, 'canvases' | 'config' | 'instanceSecret' | 'users'>,
  prefs: PreferenceStore,
  e: EventMap['canvas.owner-changed'],
): Promise<OutgoingMail[]> {
  const [canvas, from, to, by] = await Promise.all([
    ctx.canvases.byId(e.canvasId),
    ctx.users.byId(e.fromUserId),
    ctx.users.byId(e.toUserId),
    ctx.users.byId(e.byUserId),
  ]);
  if (!canvas || !from || !to || !by) return [];
  const page = { label: 'The canvas in the dashboard', url: `${ctx.config.baseUrl}/#/canvas/${encodeURIComponent(canvas.id)}` };
  const footer = `You get this because a canvas you own or owned changed hands on ${ctx.config.baseUrl}. Choose which emails you get in the dashboard: ${ctx.config.baseUrl}/.`;
  const stop = (u: User) => unsubscribeUrl(ctx.config, ctx.instanceSecret, { userId: u.id, kind: 'ownership' });
  const byWhom = by.id === from.id ? '' : ` (by ${who(by)})`;
  const mails: OutgoingMail[] = [];
  if (to.active && (await prefs.wants(to.id, 'ownership')))
    mails.push({
      kind: 'ownership',
      recipient: to.email,
      ...compose({
        subject: `You now own "${canvas.title}"`,
        paragraphs: [
          `The canvas "${canvas.title}" was given to you by ${who(from)}${byWhom}. You now own it: its people, settings, deploy key and data are yours to manage. ${who(from)} stays on its people list as an editor.`,
        ],
        link: page,
        footer,
        unsubscribe: stop(to),
      }),
    });
  if (from.active && (await prefs.wants(from.id, 'ownership')))
    mails.push({
      kind: 'ownership',
      recipient: from.email,
      ...compose({
        subject: `"${canvas.title}" now belongs to ${who(to)}`,
        paragraphs: [
          `Your canvas "${canvas.title}" now belongs to ${who(to)}${byWhom}. You stay on its people list as an editor, until its new owner changes that.`,
        ],
        link: page,
        footer,
        unsubscribe: stop(from),
      }),
    });
  return mails;
}

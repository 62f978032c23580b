// A guest link sent by email to the address its creator gave. The recipient
// has no account, hence no preferences: the message always goes when an
// address was given (and the instance sends email). The inviter's own
// `guest_invite` choice is about mail the inviter receives, not this. The
// link is a secret: it is only in the message (and its outbox row until sent),
// never in a log line or an event.
import type { Core } from '../foundation.ts';
import { compose } from './compose.ts';
import type { OutgoingMail } from './outbox-store.ts';

export interface GuestInviteMail {
  canvasId: string;
  byUserId: string;
  email: string;
  url: string;
  expiresAt: number;
}

export async function guestInviteMail(ctx: Pick<Core, 'canvases' | 'config' | 'users'>, m: GuestInviteMail): Promise<OutgoingMail | null> {
  const [canvas, by] = await Promise.all([ctx.canvases.byId(m.canvasId), ctx.users.byId(m.byUserId)]);
  if (!canvas || !by) return null;
  const who = by.name && by.name !== by.email ? `${by.name} (${by.email})` : by.email;
  const until = ` It works until ${new Date(m.expiresAt).toUTCString()}.`;
  return {
    kind: 'guest_invite',
    recipient: m.email,
    ...compose({
      subject: `${who} invited you to "${canvas.title}"`,
      paragraphs: [
        `${who} invited you to open the canvas "${canvas.title}" as a guest, without an account.${until} The link is for you: whoever has it can open the canvas.`,
      ],
      link: { label: 'Open the canvas', url: m.url },
      footer: `You get this because ${by.email} entered your address on ${ctx.config.baseUrl}. No account was made for you and you will get no other email from it.`,
    }),
  };
}

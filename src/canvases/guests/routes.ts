import { Type as T } from '@sinclair/typebox';
import { DEFAULT_GUEST_NAME, guestCookie, type GuestInvite } from '../../auth/guests.ts';
import { actorKind, managedCanvas, type Actor, type Managed } from '../authority.ts';
import { canvasUrl } from '../url.ts';
import type { Core } from '../../foundation.ts';
import { AppError } from '../../errors.ts';
import { metaOf } from '../../http/meta.ts';
import { escapeHtml, html } from '../../http/respond.ts';
import { cardPage } from '../../http/card-page.ts';
import { declaredRoutes, publicRoute } from '../../http/declared-route.ts';
import { Ok } from '../../openapi/schemas.ts';
import { sessionRoute } from '../../auth/door-routes.ts';
import type { AuthKinds } from '../../server/auth-kinds.ts';
import { EMAIL } from '../../auth/users.ts';
import { CreateInviteBody, INVITE_TOKEN, InviteCreated, InviteList, type InviteMailer } from './model.ts';

/** `active`: the link opens and its sessions work (not revoked, not expired, its creator still manages the canvas). */
const inviteView = (i: GuestInvite, active: boolean) => ({
  inviteId: i.inviteId,
  name: i.name,
  createdBy: i.createdBy,
  createdAt: i.createdAt,
  expiresAt: i.expiresAt,
  revokedAt: i.revokedAt,
  active,
});

/**
 * Legacy guest invites (CONTRACT §3): managed by the canvas's owner, editors
 * and instance admins (anyone else gets 404), opened at /auth/guest?token=….
 */
export function guestRoutes(
  ctx: Pick<Core, 'audit' | 'canvases' | 'config' | 'events' | 'guests' | 'log'>,
  auth: AuthKinds,
  mailInvite: InviteMailer = async () => false,
) {
  /** The canvas, when the caller may manage it; 404 for everyone else. */
  const manageable = async (actor: Actor, id: string): Promise<Managed & { actor: Actor }> => ({
    ...(await managedCanvas(ctx, actor, id, 'manage')),
    actor,
  });
  /** The management guard's refusal of a request from a canvas page (test/management.test.ts). */
  const FROM_PAGES = ['CROSS_CANVAS_FORBIDDEN'] as const;

  return declaredRoutes('guest-invites', auth, [
    sessionRoute(
      {
        method: 'POST',
        path: '/api/canvases/:id/guest-invites',
        summary: 'Create a guest invite link',
        body: CreateInviteBody,
        bodyOptions: {
          maxBytes: 4096,
          emptyAs: {},
          jsonTypeOnly: false,
          tooLarge: () => new AppError('INVALID_BODY', 'send a JSON object {"name"?: string, "expiresInDays"?: number, "email"?: string}'),
        },
        answer: InviteCreated,
        status: 201,
        errors: ['NOT_FOUND', 'INVALID_BODY', ...FROM_PAGES],
      },
      {
        check: async ({ actor, params }) => void (await manageable(actor, params.id)),
        handle: async ({ actor, params, body }) => {
          const m = await manageable(actor, params.id);
          const { canvas } = m;
          const email = body.email?.trim();
          if (email !== undefined && !EMAIL.test(email)) throw new AppError('INVALID_BODY', 'email: not an email address');
          const { invite, token } = await ctx.guests.createInvite(
            canvas.id,
            m.actor.user.id,
            body.name?.trim() || DEFAULT_GUEST_NAME,
            body.expiresInDays,
          );
          await ctx.audit.record({
            actorId: m.actor.user.id,
            actorKind: actorKind(m),
            canvasId: canvas.id,
            action: 'guest.invite.created',
            detail: { inviteId: invite.inviteId },
          });
          // The token rides in the query string, which request logs never record.
          const url = `${ctx.config.baseUrl}/auth/guest?token=${token}`;
          const answer = { inviteId: invite.inviteId, url, expiresAt: invite.expiresAt };
          if (email === undefined) return answer;
          // `emailed` (only when an address was given): the message is in the outbox; false when the instance sends no email.
          const emailed = await mailInvite({ canvasId: canvas.id, byUserId: m.actor.user.id, email, url, expiresAt: invite.expiresAt });
          return { ...answer, emailed };
        },
      },
    ),
    sessionRoute(
      {
        method: 'GET',
        path: '/api/canvases/:id/guest-invites',
        summary: 'Guest invites of a canvas',
        answer: InviteList,
        errors: ['NOT_FOUND', ...FROM_PAGES],
      },
      async ({ actor, params }) => {
        const { canvas } = await manageable(actor, params.id);
        const invites = await ctx.guests.invites(canvas.id);
        const live = await Promise.all(invites.map((i) => ctx.guests.isLive(i.inviteId)));
        return { invites: invites.map((i, n) => inviteView(i, live[n]!)) };
      },
    ),
    sessionRoute(
      {
        method: 'DELETE',
        path: '/api/canvases/:id/guest-invites/:inviteId',
        summary: 'Revoke a guest invite',
        answer: Ok,
        errors: ['NOT_FOUND', ...FROM_PAGES],
      },
      async ({ actor, params }) => {
        const m = await manageable(actor, params.id);
        const { canvas } = m;
        if (!(await ctx.guests.revoke(canvas.id, params.inviteId))) throw new AppError('NOT_FOUND', 'no such invite');
        await ctx.audit.record({
          actorId: m.actor.user.id,
          actorKind: actorKind(m),
          canvasId: canvas.id,
          action: 'guest.invite.revoked',
          detail: { inviteId: params.inviteId },
        });
        ctx.events.emit('canvas.access-changed', { canvasId: canvas.id });
        return { ok: true } as const;
      },
    ),
    publicRoute(
      {
        method: 'GET',
        path: '/auth/guest',
        tag: 'Sign-in',
        summary: 'Open a guest invite link (a guest session for one canvas)',
        query: T.Object({ token: T.Optional(T.String({ description: 'the invite token' })) }),
        answer: { contentType: 'text/html', description: 'redirect to the canvas' },
        pages: { 404: 'the invite link is unknown, revoked or expired' },
      },
      async ({ request, query }) => {
        const given = query.token ?? '';
        const invite = INVITE_TOKEN.test(given) ? await ctx.guests.inviteByToken(given) : null;
        const canvas = invite ? await ctx.canvases.byId(invite.canvasId) : null;
        if (!invite || !canvas) return invalidLink();
        const token = await ctx.guests.createSession(invite);
        metaOf(request).cookies.push(guestCookie(ctx.config, token));
        ctx.log.info('guest sign-in', { inviteId: invite.inviteId, canvasId: canvas.id });
        await ctx.audit.record({
          actorId: `guest:${invite.inviteId}`,
          actorKind: 'guest',
          canvasId: canvas.id,
          action: 'guest.invite.used',
          detail: { inviteId: invite.inviteId },
        });
        return new Response(null, {
          status: 303,
          headers: { location: canvasUrl(ctx.config, canvas.slug), 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' },
        });
      },
    ),
  ]);
}

function invalidLink(): Response {
  const message =
    'This guest link does not work any more: it may have expired or been revoked. Ask the person who shared it for a new one.';
  return html(404, cardPage({ title: 'Link not valid', body: `<h1>Link not valid</h1><p>${escapeHtml(message)}</p>` }), {
    'cache-control': 'no-store',
    'referrer-policy': 'no-referrer',
  });
}

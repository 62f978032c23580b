import { Type, type Static } from '@sinclair/typebox';
import { MAX_INVITE_DAYS } from '../../auth/guests.ts';

/**
 * POST /api/canvases/{id}/guest-invites: an optional display name for the
 * guests of this link, how many days the link works (default 14), and an
 * address to email the link to (when the instance sends email).
 */
export const CreateInviteBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    expiresInDays: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_INVITE_DAYS })),
    email: Type.Optional(Type.String({ minLength: 3, maxLength: 320 })),
  },
  { additionalProperties: false },
);
export type CreateInviteBody = Static<typeof CreateInviteBody>;

/** Invite link tokens are newToken()s: 32 base62 characters. */
export const INVITE_TOKEN = /^[A-Za-z0-9]{32}$/;

/** Sends a new invite's link to an address; resolves false when it was not recorded (email off). */
export type InviteMailer = (m: { canvasId: string; byUserId: string; email: string; url: string; expiresAt: number }) => Promise<boolean>;

/** A new invite: its link (shown this once: the token is not kept) and, when an address was given, whether it was emailed. */
export const InviteCreated = Type.Object({
  inviteId: Type.String(),
  url: Type.String({ description: 'the invite link, /auth/guest?token=…' }),
  expiresAt: Type.Integer({ description: 'ms since the epoch' }),
  emailed: Type.Optional(
    Type.Boolean({ description: 'only when `email` was given: the link is in the outbox (false: the instance sends no email)' }),
  ),
});

export const InviteList = Type.Object({
  invites: Type.Array(
    Type.Object({
      inviteId: Type.String(),
      name: Type.String({ description: "the guests' display name" }),
      createdBy: Type.String(),
      createdAt: Type.Integer(),
      expiresAt: Type.Integer(),
      revokedAt: Type.Union([Type.Integer(), Type.Null()]),
      active: Type.Boolean({
        description: 'the link opens and its sessions work (not revoked, not expired, its creator still manages the canvas)',
      }),
    }),
  ),
});

import { Type, type Static } from '@sinclair/typebox';
import { MAX_INVITE_DAYS } from '../../auth/guests.ts';

/**
 * POST /api/canvases/{id}/guest-invites: an optional display name for the
 * guests of this link, and how many days the link works (default 14).
 */
export const CreateInviteBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    expiresInDays: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_INVITE_DAYS })),
  },
  { additionalProperties: false },
);
export type CreateInviteBody = Static<typeof CreateInviteBody>;

/** Invite link tokens are newToken()s: 32 base62 characters. */
export const INVITE_TOKEN = /^[A-Za-z0-9]{32}$/;

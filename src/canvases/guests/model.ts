import { Type, type Static } from '@sinclair/typebox';

/** POST /api/canvases/{id}/guest-invites: an optional display name for the guests of this link. */
export const CreateInviteBody = Type.Object(
  { name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })) },
  { additionalProperties: false },
);
export type CreateInviteBody = Static<typeof CreateInviteBody>;

/** Invite link tokens are newToken()s: 32 base62 characters. */
export const INVITE_TOKEN = /^[A-Za-z0-9]{32}$/;

import type { Core } from '../foundation.ts';
import { AppError } from '../errors.ts';
import type { AuthKinds } from '../server/auth-kinds.ts';
import { declaredRoutes } from '../http/declared-route.ts';
import { sessionRoute } from './door-routes.ts';
import { Ok } from '../openapi/schemas.ts';
import { CreateTokenBody, TokenCreated, TokenList } from './model.ts';

/**
 * /api/tokens (CONTRACT §4): a person's personal access tokens. POST answers
 * 201 with the token, the only time it is shown; GET lists them without
 * secrets; DELETE revokes at once. Each person sees and deletes only theirs.
 * Managing them needs the person's session, as on GitHub: a token that could
 * mint tokens would outlive its own expiry through them. A token sees only
 * itself and may revoke only itself (`easel logout`); anything else is 403
 * SESSION_REQUIRED, decided before a body is read.
 */
const sessionRequired = (what: string) =>
  new AppError('SESSION_REQUIRED', `${what} needs your session: use the dashboard, or easel login, not a personal access token`);

export function tokenRoutes(ctx: Pick<Core, 'audit' | 'now' | 'tokens'>, auth: AuthKinds) {
  return declaredRoutes('personal-tokens', auth, [
    sessionRoute(
      {
        method: 'POST',
        path: '/api/tokens',
        tag: 'Tokens',
        summary: 'Create a personal access token (shown once; with the session only)',
        body: CreateTokenBody,
        answer: TokenCreated,
        status: 201,
        errors: ['SESSION_REQUIRED', 'INVALID_BODY'],
      },
      {
        check: ({ actor }) => {
          if (actor.tokenId !== undefined) throw sessionRequired('creating a token');
        },
        handle: async ({ actor, body }) => {
          const expiresAt = body.expiresAt ?? null;
          if (expiresAt !== null && expiresAt <= ctx.now()) throw new AppError('INVALID_BODY', 'expiresAt: must be in the future');
          const created = await ctx.tokens.create(actor.user.id, body.name.trim() || 'token', expiresAt);
          await ctx.audit.record({
            actorId: actor.user.id,
            actorKind: 'user',
            canvasId: null,
            action: 'token.create',
            detail: { tokenId: created.id },
          });
          const { id, name, token, createdAt } = created;
          return { id, name, token, createdAt, expiresAt };
        },
      },
    ),
    sessionRoute(
      {
        method: 'GET',
        path: '/api/tokens',
        tag: 'Tokens',
        summary: 'Your personal access tokens, never their values (a token lists only itself)',
        answer: TokenList,
      },
      async ({ actor }) => {
        const tokens = await ctx.tokens.list(actor.user.id);
        return { tokens: actor.tokenId === undefined ? tokens : tokens.filter((t) => t.id === actor.tokenId) };
      },
    ),
    sessionRoute(
      {
        method: 'DELETE',
        path: '/api/tokens/:id',
        tag: 'Tokens',
        summary: 'Revoke a token (a token may revoke only itself)',
        answer: Ok,
        errors: ['SESSION_REQUIRED', 'NOT_FOUND'],
      },
      async ({ actor, params }) => {
        if (actor.tokenId !== undefined && actor.tokenId !== params.id) throw sessionRequired('revoking another token');
        if (!(await ctx.tokens.delete(actor.user.id, params.id))) throw new AppError('NOT_FOUND', 'no such token');
        await ctx.audit.record({
          actorId: actor.user.id,
          actorKind: 'user',
          canvasId: null,
          action: 'token.delete',
          detail: { tokenId: params.id },
        });
        return { ok: true } as const;
      },
    ),
  ]);
}

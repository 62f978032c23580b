import { Elysia, t } from 'elysia';
import type { AppContext } from '../context.ts';
import { AppError } from '../errors.ts';
import type { AuthKinds } from '../server/auth-kinds.ts';
import { readJson } from '../http/json-body.ts';
import { json } from '../http/respond.ts';

const NAME_MAX = 100;
export const CreateTokenBody = t.Object(
  {
    name: t.String({ minLength: 1, maxLength: NAME_MAX }),
    expiresAt: t.Optional(t.Union([t.Integer({ minimum: 0, description: 'epoch milliseconds' }), t.Null()])),
  },
  { additionalProperties: false },
);

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

export function tokenRoutes(ctx: AppContext, auth: AuthKinds) {
  const ok = (status: number, body: unknown) => json(status, body, { 'cache-control': 'no-store' });
  return new Elysia({ name: 'personal-tokens' }).use(auth).guard({ management: true, parse: 'none' }, (app) =>
    app
      .post('/api/tokens', async ({ actor, request }) => {
        if (actor.tokenId !== undefined) throw sessionRequired('creating a token');
        const body = await readJson(request, CreateTokenBody);
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
        return ok(201, { id, name, token, createdAt, expiresAt });
      })
      .get('/api/tokens', async ({ actor }) => {
        const tokens = await ctx.tokens.list(actor.user.id);
        return ok(200, { tokens: actor.tokenId === undefined ? tokens : tokens.filter((t) => t.id === actor.tokenId) });
      })
      .delete('/api/tokens/:id', async ({ actor, params }) => {
        if (actor.tokenId !== undefined && actor.tokenId !== params.id) throw sessionRequired('revoking another token');
        if (!(await ctx.tokens.delete(actor.user.id, params.id))) throw new AppError('NOT_FOUND', 'no such token');
        await ctx.audit.record({
          actorId: actor.user.id,
          actorKind: 'user',
          canvasId: null,
          action: 'token.delete',
          detail: { tokenId: params.id },
        });
        return ok(200, { ok: true });
      }),
  );
}

import { Elysia } from 'elysia';
import type { AppContext } from '../../context.ts';
import type { AuthKinds } from '../../server/auth-kinds.ts';
import { runtimeJson } from '../runtime-request.ts';
import { identityOf } from './service.ts';

/** GET /v1/c/{slug}/me: the identity capability. */
export function meRoutes(ctx: AppContext, auth: AuthKinds) {
  return new Elysia({ name: 'runtime-me' })
    .use(auth)
    .get('/v1/c/:slug/me', ({ caller }) => runtimeJson(200, identityOf(ctx, caller)), { runtime: 'identity' });
}

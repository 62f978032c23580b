import { Elysia } from 'elysia';
import type { AppContext } from '../context.ts';
import type { AuthKinds } from '../server/auth-kinds.ts';
import { json } from '../http/respond.ts';
import type { AuthoringService } from './service.ts';

/**
 * POST /api/canvases/{id}/revoke: the dashboard's way to take back what a
 * page published (the same revocation as the runtime DELETE /authoring/{id}:
 * owner, editor or admin; 404 for anyone else and for canvases no page made).
 */
export function authoringManagementRoutes(auth: AuthKinds, authoring: AuthoringService, ctx: Pick<AppContext, 'canvases'>) {
  return new Elysia({ name: 'authoring-management' }).use(auth).guard({ management: true, parse: 'none' }, (app) =>
    app.post('/api/canvases/:id/revoke', async ({ actor, params }) => {
      await authoring.revoke(actor, params.id);
      return json(200, { authored: await authoring.summaryOf((await ctx.canvases.byId(params.id))!) }, { 'cache-control': 'no-store' });
    }),
  );
}

// POST /api/canvases/{id}/revoke: the dashboard's way to take back what a
// page published (the same revocation as the runtime DELETE /authoring/{id}:
// owner, editor or admin; 404 for anyone else and for canvases no page made).
import { Type as T } from '@sinclair/typebox';
import { sessionRoute } from '../auth/door-routes.ts';
import type { Core } from '../foundation.ts';
import { declaredRoutes } from '../http/declared-route.ts';
import type { AuthKinds } from '../server/auth-kinds.ts';
import { AuthoredSummaryAnswer } from './model.ts';
import type { AuthoringService } from './service.ts';

export function authoringManagementRoutes(auth: AuthKinds, authoring: AuthoringService, ctx: Pick<Core, 'canvases'>) {
  return declaredRoutes('authoring-management', auth, [
    sessionRoute(
      {
        method: 'POST',
        path: '/api/canvases/:id/revoke',
        summary: 'Revoke a canvas a page published (authoring)',
        answer: T.Object({ authored: AuthoredSummaryAnswer }),
        errors: ['NOT_FOUND'],
      },
      async ({ actor, params }) => {
        await authoring.revoke(actor, params.id);
        return { authored: await authoring.summaryOf((await ctx.canvases.byId(params.id))!) };
      },
    ),
  ]);
}

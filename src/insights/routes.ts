// GET /api/canvases/{id}/insights?days=N (CONTRACT §9, 2026-11-28): owners,
// editors and admins, as the other management routes; viewers and strangers
// 404. Counts only: what was flushed to the database (a few seconds behind).
import { Type as T } from '@sinclair/typebox';
import { managedCanvas } from '../canvases/authority.ts';
import { sessionRoute } from '../auth/door-routes.ts';
import type { Core } from '../foundation.ts';
import { AppError } from '../errors.ts';
import { declaredRoutes } from '../http/declared-route.ts';
import type { AuthKinds } from '../server/auth-kinds.ts';
import { checkStrict } from '../http/json-body.ts';
import { utcDay } from '../runtime/usage.ts';
import { InsightsAnswer, InsightsQuery } from './model.ts';
import { INSIGHT_DAYS_KEPT, type InsightStore } from './store.ts';

const DEFAULT_DAYS = 30;

/**
 * The whole query, checked strictly (another parameter, or days not digits:
 * 400 INVALID_BODY), after the right to the canvas. The declared query only
 * describes `days`: the declared check ignores unknown parameters.
 */
function daysOf(request: Request): number {
  const query = Object.fromEntries(new URL(request.url).searchParams);
  checkStrict(InsightsQuery, query);
  const days = query.days === undefined ? DEFAULT_DAYS : Number(query.days);
  if (days < 1 || days > INSIGHT_DAYS_KEPT) throw new AppError('INVALID_BODY', `days: from 1 to ${INSIGHT_DAYS_KEPT}`);
  return days;
}

export function insightRoutes(ctx: Pick<Core, 'canvases' | 'now'>, auth: AuthKinds, store: InsightStore) {
  return declaredRoutes('insights', auth, [
    sessionRoute(
      {
        method: 'GET',
        path: '/api/canvases/:id/insights',
        summary: 'Views, signed-in visitors, top paths and API calls per UTC day (counts only)',
        query: T.Object({
          days: T.Optional(T.String({ description: `how many UTC days up to today, 1–${INSIGHT_DAYS_KEPT} (default 30)` })),
        }),
        answer: InsightsAnswer,
        errors: ['NOT_FOUND', 'INVALID_BODY'],
        headers: { 'cache-control': 'private, no-store' },
      },
      async ({ actor, params, request }) => {
        const managed = await managedCanvas(ctx, actor, params.id, 'manage');
        return store.read(managed.canvas.id, utcDay(ctx.now()), daysOf(request));
      },
    ),
  ]);
}

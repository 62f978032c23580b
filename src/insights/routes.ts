// GET /api/canvases/{id}/insights?days=N (CONTRACT §9, 2026-11-28): owners,
// editors and admins, as the other management routes; viewers and strangers
// 404. Counts only: what was flushed to the database (a few seconds behind).
import { Elysia } from 'elysia';
import { managedCanvas } from '../canvases/authority.ts';
import type { AppContext } from '../context.ts';
import { AppError } from '../errors.ts';
import type { AuthKinds } from '../server/auth-kinds.ts';
import { checkStrict } from '../http/json-body.ts';
import { json } from '../http/respond.ts';
import { utcDay } from '../runtime/usage.ts';
import { InsightsQuery } from './model.ts';
import { INSIGHT_DAYS_KEPT, type InsightStore } from './store.ts';

const DEFAULT_DAYS = 30;

function daysOf(request: Request): number {
  const query = Object.fromEntries(new URL(request.url).searchParams);
  checkStrict(InsightsQuery, query);
  const days = query.days === undefined ? DEFAULT_DAYS : Number(query.days);
  if (days < 1 || days > INSIGHT_DAYS_KEPT) throw new AppError('INVALID_BODY', `days: from 1 to ${INSIGHT_DAYS_KEPT}`);
  return days;
}

export function insightRoutes(ctx: AppContext, auth: AuthKinds, store: InsightStore) {
  return new Elysia({ name: 'insights' }).use(auth).guard({ management: true, parse: 'none' }, (app) =>
    app.get('/api/canvases/:id/insights', async ({ actor, params, request }) => {
      const managed = await managedCanvas(ctx, actor, params.id, 'manage');
      const days = daysOf(request);
      return json(200, await store.read(managed.canvas.id, utcDay(ctx.now()), days), { 'cache-control': 'private, no-store' });
    }),
  );
}

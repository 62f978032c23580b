import { managedCanvas } from '../../canvases/authority.ts';
import { adminRoute, sessionRoute } from '../../auth/door-routes.ts';
import type { Core } from '../../foundation.ts';
import { declaredRoutes } from '../../http/declared-route.ts';
import type { AuthKinds } from '../../server/auth-kinds.ts';
import { CanvasAiUsage, InstanceAiUsage, UsageRangeQuery } from './model.ts';
import { rangeOf, UsageReports } from './usage-report.ts';

/** Spend is a person's data for this viewer only: no shared cache keeps it. */
const NO_STORE = { 'cache-control': 'private, no-store' };

/**
 * AI spend for the dashboard (management API):
 * GET /api/canvases/{id}/ai-usage?from&to — owners, editors and admins (anyone else 404);
 * GET /api/admin/ai-usage?from&to — instance admins (anyone else 404).
 * `from`/`to` are inclusive UTC days; the default is the current month so far.
 */
export function aiUsageRoutes(ctx: Pick<Core, 'canvases' | 'now' | 'settings' | 'sql'>, auth: AuthKinds) {
  const reports = new UsageReports(ctx.sql);
  const rangeAsked = (query: { from?: string; to?: string }) => rangeOf({ from: query.from ?? null, to: query.to ?? null }, ctx.now());

  return declaredRoutes('ai-usage', auth, [
    sessionRoute(
      {
        method: 'GET',
        path: '/api/canvases/:id/ai-usage',
        summary: "A canvas's AI spend",
        query: UsageRangeQuery,
        answer: CanvasAiUsage,
        headers: NO_STORE,
        errors: ['NOT_FOUND', 'INVALID_BODY'],
      },
      async ({ actor, params, query }) => {
        const { canvas } = await managedCanvas(ctx, actor, params.id, 'manage');
        const range = rangeAsked(query);
        const budget = await reports.budget(canvas.id, ctx.now(), ctx.settings.get().aiCanvasMonthlyUsd, canvas.guestAiMonthlyUsd);
        return { canvasId: canvas.id, ...(await reports.forCanvas(canvas.id, range)), budget };
      },
    ),
    adminRoute(
      {
        method: 'GET',
        path: '/api/admin/ai-usage',
        summary: 'AI spend across the instance',
        query: UsageRangeQuery,
        answer: InstanceAiUsage,
        headers: NO_STORE,
        errors: ['INVALID_BODY'],
      },
      async ({ query }) => {
        const report = await reports.forInstance(rangeAsked(query));
        const settings = ctx.settings.get();
        return {
          ...report,
          // The instance report always has it (usage-report.ts); the type says optional for the canvas report's sake.
          byCanvas: report.byCanvas ?? [],
          caps: { userDailyUsd: settings.aiUserDailyUsd, canvasMonthlyUsd: settings.aiCanvasMonthlyUsd },
        };
      },
    ),
  ]);
}

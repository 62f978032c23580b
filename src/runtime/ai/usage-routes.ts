import { Elysia } from 'elysia';
import { managedCanvas } from '../../canvases/authority.ts';
import type { AppContext } from '../../context.ts';
import type { AuthKinds } from '../../server/auth-kinds.ts';
import { json } from '../../http/respond.ts';
import { rangeOf, UsageReports } from './usage-report.ts';

const NO_STORE = { 'cache-control': 'private, no-store' };

/**
 * AI spend for the dashboard (management API):
 * GET /api/canvases/{id}/ai-usage?from&to — owners, editors and admins (anyone else 404);
 * GET /api/admin/ai-usage?from&to — instance admins (anyone else 404).
 * `from`/`to` are inclusive UTC days; the default is the current month so far.
 */
export function aiUsageRoutes(ctx: AppContext, auth: AuthKinds) {
  const reports = new UsageReports(ctx.sql);
  const queryOf = (request: Request) => {
    const q = new URL(request.url).searchParams;
    return { from: q.get('from'), to: q.get('to') };
  };

  return new Elysia({ name: 'ai-usage' })
    .use(auth)
    .get(
      '/api/canvases/:id/ai-usage',
      async ({ actor, params, request }) => {
        const { canvas } = await managedCanvas(ctx, actor, params.id, 'manage');
        const range = rangeOf(queryOf(request), ctx.now());
        const budget = await reports.budget(canvas.id, ctx.now(), ctx.settings.get().aiCanvasMonthlyUsd, canvas.guestAiMonthlyUsd);
        return json(200, { canvasId: canvas.id, ...(await reports.forCanvas(canvas.id, range)), budget }, NO_STORE);
      },
      { management: true },
    )
    .get(
      '/api/admin/ai-usage',
      async ({ request }) => {
        const range = rangeOf(queryOf(request), ctx.now());
        const settings = ctx.settings.get();
        return json(
          200,
          {
            ...(await reports.forInstance(range)),
            caps: { userDailyUsd: settings.aiUserDailyUsd, canvasMonthlyUsd: settings.aiCanvasMonthlyUsd },
          },
          NO_STORE,
        );
      },
      { admin: true },
    );
}

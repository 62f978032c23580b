// GET /metrics: an instance admin's session, or `Authorization: Bearer
// <EASEL_METRICS_TOKEN>` (what a Prometheus scrape job sends). With a token
// configured, anything else is 401 naming the bearer scheme; without one the
// route answers like the admin routes (401 signed out, 404 to non-admins).
import { createHash, timingSafeEqual } from 'node:crypto';
import { Elysia } from 'elysia';
import type { AppContext } from '../context.ts';
import { AppError, notFound } from '../errors.ts';
import { principalOf } from '../auth/guards.ts';
import type { Metrics } from './metrics.ts';

const digest = (value: string) => createHash('sha256').update(value).digest();

export function metricsRoutes(ctx: AppContext, metrics: Metrics) {
  const expected = ctx.config.metricsToken === null ? null : digest(ctx.config.metricsToken);
  const tokenMatches = (request: Request) => {
    const header = request.headers.get('authorization');
    if (expected === null || header === null || !/^Bearer /i.test(header)) return false;
    return timingSafeEqual(digest(header.slice(7).trim()), expected);
  };
  return new Elysia({ name: 'metrics' }).get('/metrics', async ({ request }) => {
    if (!tokenMatches(request)) {
      const principal = await principalOf(ctx, request);
      const admin = principal?.kind === 'user' && ctx.auth.isAdmin(principal.user);
      if (!admin && expected !== null)
        throw new AppError(
          'unauthorized',
          'send Authorization: Bearer <EASEL_METRICS_TOKEN>',
          {},
          { headers: { 'www-authenticate': 'Bearer realm="easel metrics"' } },
        );
      if (!principal || principal.kind === 'anonymous') throw new AppError('unauthorized');
      if (!admin) throw notFound('no such route');
    }
    return new Response(metrics.render(), { headers: { 'content-type': metrics.contentType, 'cache-control': 'no-store' } });
  });
}

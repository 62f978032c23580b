// GET /metrics: an instance admin's session, or `Authorization: Bearer
// <EASEL_METRICS_TOKEN>` (what a Prometheus scrape job sends). With a token
// configured, anything else is 401 naming the bearer scheme; without one the
// route answers like the admin routes (401 signed out, 404 to non-admins).
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Core } from '../foundation.ts';
import { AppError, notFound } from '../errors.ts';
import { principalOf } from '../auth/guards.ts';
import { declaredRoutes } from '../http/declared-route.ts';
import { metricsRoute } from './door-routes.ts';
import type { Metrics } from './metrics.ts';

const digest = (value: string) => createHash('sha256').update(value).digest();

export function metricsRoutes(ctx: Pick<Core, 'auth' | 'config'>, metrics: Metrics) {
  const expected = ctx.config.metricsToken === null ? null : digest(ctx.config.metricsToken);
  const tokenMatches = (request: Request) => {
    const header = request.headers.get('authorization');
    if (expected === null || header === null || !/^Bearer /i.test(header)) return false;
    return timingSafeEqual(digest(header.slice(7).trim()), expected);
  };
  return declaredRoutes('metrics', null, [
    metricsRoute(
      {
        method: 'GET',
        path: '/metrics',
        tag: 'Service',
        summary: 'Prometheus metrics (admin session or EASEL_METRICS_TOKEN)',
        answer: { contentType: 'text/plain; version=0.0.4', description: 'Prometheus text exposition' },
      },
      async ({ request }) => {
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
      },
    ),
  ]);
}

import type { AppContext } from '../context.ts';
import { declaredRoutes, publicRoute } from '../http/declared-route.ts';
import type { ListedRoute } from '../http/route-listing.ts';
import { openApiDocument } from './document.ts';

/**
 * GET /openapi.json, without sign-in (it describes the API, it holds no data).
 * Built on the first request, once every route is mounted, and kept: it
 * depends on the routes and the configuration alone.
 */
export function openApiRoute(ctx: Pick<AppContext, 'config' | 'version'>, listing: () => ListedRoute[]) {
  let body: string | null = null;
  return declaredRoutes('openapi', null, [
    publicRoute(
      {
        method: 'GET',
        path: '/openapi.json',
        tag: 'Service',
        summary: 'This document',
        answer: { contentType: 'application/json', description: 'OpenAPI 3.1' },
      },
      () => {
        body ??= JSON.stringify(openApiDocument(listing(), ctx.config, ctx.version));
        return new Response(body, { headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-cache' } });
      },
    ),
  ]);
}

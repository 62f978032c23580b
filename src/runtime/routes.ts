import { Elysia } from 'elysia';
import type { AppContext } from '../context.ts';
import { AppError } from '../errors.ts';
import { fileRoutes } from './files/routes.ts';
import { guestRoutes } from './guests/routes.ts';
import { rawSegments, runtimeRequest } from './runtime-request.ts';
import { preflightResponse } from './isolation.ts';
import { kvRoutes } from './kv/routes.ts';
import { meRoutes } from './me/routes.ts';

/**
 * The runtime API core under /v1/c/{slug}: preflight, identity, KV, files,
 * plus legacy guest invites. Other primitives mount their own routes and run
 * the same pipeline (runtimeRequest / runPipeline).
 */
export function runtimeRoutes(ctx: AppContext) {
  const slugOf = (request: Request) => rawSegments(request, '').slug;
  const noSuchRoute = (request: Request) =>
    runtimeRequest(ctx, request, slugOf(request), { capability: 'identity', skipCapability: true }, () => {
      throw new AppError('NOT_FOUND', 'no such route');
    });
  return (
    new Elysia({ name: 'runtime' })
      // Step 0: preflight, before the auth gateway; never 401.
      .options('/v1/c/:slug', ({ request }) => preflightResponse(ctx.config, request, slugOf(request)))
      .options('/v1/c/:slug/*', ({ request }) => preflightResponse(ctx.config, request, slugOf(request)))
      .use(meRoutes(ctx))
      .use(kvRoutes(ctx))
      .use(fileRoutes(ctx))
      .use(guestRoutes(ctx))
      // Any other path under a canvas (the bare /v1/c/{slug} included) still answers in pipeline order:
      // 401, 429, 404 of the canvas… then "no such route", with the pipeline's CORS headers and Vary.
      .all('/v1/c/:slug', ({ request }) => noSuchRoute(request), { parse: 'none' })
      .all('/v1/c/:slug/*', ({ request }) => noSuchRoute(request), { parse: 'none' })
  );
}

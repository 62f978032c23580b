import { Elysia } from 'elysia';
import type { AppContext } from '../context.ts';
import { AppError } from '../errors.ts';
import type { RuntimeCore } from './core.ts';
import { preflightResponse } from './isolation.ts';
import { rawSegments } from './runtime-request.ts';

const slugOf = (request: Request) => rawSegments(request, '').slug;

/** Step 0 of the runtime pipeline: preflight, before the auth gateway; never 401. */
export function runtimePreflightRoutes(ctx: AppContext) {
  return new Elysia({ name: 'runtime-preflight' })
    .options('/v1/c/:slug', ({ request }) => preflightResponse(ctx.config, request, slugOf(request)))
    .options('/v1/c/:slug/*', ({ request }) => preflightResponse(ctx.config, request, slugOf(request)));
}

/**
 * Any other path under a canvas (the bare /v1/c/{slug} included) still
 * answers in pipeline order: 401, 429, 404 of the canvas… then "no such
 * route", with the pipeline's CORS headers and Vary. Mounted after every
 * runtime route.
 */
export function runtimeFallbackRoutes(runtime: RuntimeCore) {
  const noSuchRoute = (request: Request) =>
    runtime.pipeline.handle(request, slugOf(request), { capability: 'identity', skipCapability: true }, () => {
      throw new AppError('NOT_FOUND', 'no such route');
    });
  return new Elysia({ name: 'runtime-fallback' })
    .all('/v1/c/:slug', ({ request }) => noSuchRoute(request), { parse: 'none' })
    .all('/v1/c/:slug/*', ({ request }) => noSuchRoute(request), { parse: 'none' });
}

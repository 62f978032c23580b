import { Elysia } from 'elysia';
import type { AppContext } from '../context.ts';
import { AppError } from '../errors.ts';
import type { AuthKinds } from '../server/auth-kinds.ts';
import { preflightResponse } from './isolation.ts';

type SlugRoute = { request: Request; params: { slug: string | null } };

/** Step 0 of the runtime pipeline: preflight for any path under a canvas, before the auth gateway; never 401. */
export function runtimePreflightRoutes(ctx: AppContext) {
  const preflight = ({ request, params }: SlugRoute) => preflightResponse(ctx.config, request, params.slug ?? '');
  return new Elysia({ name: 'runtime-preflight' }).options('/v1/c/:slug', preflight).options('/v1/c/:slug/*', preflight);
}

/**
 * Any other path under a canvas (the bare /v1/c/{slug} included) still
 * answers in pipeline order: 401, 429, 404 of the canvas… then "no such
 * route", with the pipeline's CORS headers and Vary. Mounted after every
 * runtime route: these are the only wildcards of the runtime API.
 */
export function runtimeFallbackRoutes(auth: AuthKinds) {
  const noSuchRoute = () => {
    throw new AppError('NOT_FOUND', 'no such route');
  };
  return new Elysia({ name: 'runtime-fallback' })
    .use(auth)
    .guard({ runtime: { capability: 'identity', skipCapability: true }, parse: 'none' }, (app) =>
      app.all('/v1/c/:slug', noSuchRoute).all('/v1/c/:slug/*', noSuchRoute),
    );
}

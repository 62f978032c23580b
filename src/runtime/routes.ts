import type { AppContext } from '../context.ts';
import { AppError } from '../errors.ts';
import { declaredRoutes, publicRoute } from '../http/declared-route.ts';
import type { AuthKinds } from '../server/auth-kinds.ts';
import { runtimeRoute } from './door-routes.ts';
import { preflightResponse } from './isolation.ts';

const PREFLIGHT = {
  method: 'OPTIONS',
  tag: 'Runtime',
  summary: 'CORS preflight',
  answer: { status: 204, contentType: 'none', description: 'CORS headers' },
} as const;

/** Step 0 of the runtime pipeline: preflight for any path under a canvas, before the auth gateway; never 401. */
export function runtimePreflightRoutes(ctx: Pick<AppContext, 'config'>) {
  const preflight = ({ request, params }: { request: Request; params: { slug: string | null } }) =>
    preflightResponse(ctx.config, request, params.slug ?? '');
  return declaredRoutes('runtime-preflight', null, [
    publicRoute({ ...PREFLIGHT, path: '/v1/c/:slug' }, preflight),
    publicRoute({ ...PREFLIGHT, path: '/v1/c/:slug/*' }, preflight),
  ]);
}

/**
 * Any other path under a canvas (the bare /v1/c/{slug} included) still
 * answers in pipeline order: 401, 429, 404 of the canvas… then "no such
 * route", with the pipeline's CORS headers and Vary. Mounted after every
 * runtime route: these are the only wildcards of the runtime API.
 */
export function runtimeFallbackRoutes(auth: AuthKinds) {
  const noSuchRoute = (): never => {
    throw new AppError('NOT_FOUND', 'no such route');
  };
  const FALLBACK = {
    method: 'ALL',
    // Every capability's pipeline but the capability gate: the canvas answers first.
    doorOption: { capability: 'identity', skipCapability: true },
    tag: 'Runtime',
    summary: 'No such runtime route (after the pipeline)',
    errors: ['NOT_FOUND'],
  } as const;
  return declaredRoutes('runtime-fallback', auth, [
    runtimeRoute({ ...FALLBACK, path: '/v1/c/:slug' }, noSuchRoute),
    runtimeRoute({ ...FALLBACK, path: '/v1/c/:slug/*' }, noSuchRoute),
  ]);
}

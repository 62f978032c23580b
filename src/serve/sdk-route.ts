import type { Core } from '../foundation.ts';
import { AppError } from '../errors.ts';
import { declaredRoutes, doorRoute, publicRoute } from '../http/declared-route.ts';
import { principalOf } from '../auth/guards.ts';
import { SdkBundle, type SdkAsset } from './sdk-bundle.ts';

export interface SdkRouteOptions {
  bundle?: SdkBundle;
  /**
   * The one exception to the auth gateway: may this request without a
   * session load the SDK? Meant for anonymous visitors of an active Public
   * link canvas (the page that includes the script). Until the serving
   * feature supplies it, nobody without a session is admitted.
   */
  admitAnonymousVisitor?: (request: Request) => Promise<boolean>;
  /** Build the bundle now instead of on the first request (the server does; in-process tests need not). */
  warm?: boolean;
}

const NOT_BUILT = 'The SDK bundle has not been built (run `bun run build`, or check the server log).\n';

/**
 * GET /sdk/v1.js behind the auth gateway and /sdk/v1.d.ts without sign-in
 * (types hold no data, and editors and build tools fetch them without a
 * session); not rate-limited, cacheable for an hour, 503 text/plain when the
 * bundle is missing.
 */
export function sdkRoutes(ctx: Pick<Core, 'auth' | 'config' | 'log'>, options: SdkRouteOptions = {}) {
  const bundle =
    options.bundle ??
    new SdkBundle({
      onError: (what, err) => ctx.log.error('sdk unavailable', { what, error: err instanceof Error ? err.message : String(err) }),
    });
  const admitAnonymous = options.admitAnonymousVisitor ?? (async () => false);
  if (options.warm) void bundle.js();

  const gateway = async (request: Request): Promise<void> => {
    if ((await principalOf(ctx, request)) || (await admitAnonymous(request))) return;
    throw new AppError('unauthorized');
  };

  const serve = (request: Request, asset: SdkAsset | null, contentType: string): Response => {
    if (!asset)
      return new Response(NOT_BUILT, {
        status: 503,
        headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' },
      });
    const headers = {
      'content-type': contentType,
      'cache-control': 'public, max-age=3600',
      etag: asset.etag,
      'x-content-type-options': 'nosniff',
    };
    if (request.headers.get('if-none-match') === asset.etag) return new Response(null, { status: 304, headers });
    return new Response(asset.body, { status: 200, headers });
  };

  return declaredRoutes('sdk', null, [
    doorRoute<unknown>('session')(
      {
        ownDoor: true,
        method: 'GET',
        path: '/sdk/v1.js',
        tag: 'SDK and dashboard',
        summary: 'The browser SDK (window.easel)',
        answer: { contentType: 'text/javascript', description: 'the SDK bundle (503 text/plain when it could not be built)' },
      },
      async ({ request }) => {
        await gateway(request);
        return serve(request, await bundle.js(), 'application/javascript; charset=utf-8');
      },
    ),
    publicRoute(
      {
        method: 'GET',
        path: '/sdk/v1.d.ts',
        tag: 'SDK and dashboard',
        summary: "The SDK's TypeScript types",
        answer: { contentType: 'text/plain', description: 'declarations' },
      },
      async ({ request }) => serve(request, await bundle.types(), 'application/typescript; charset=utf-8'),
    ),
  ]);
}

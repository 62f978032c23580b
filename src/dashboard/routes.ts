import type { Config } from '../config.ts';
import type { AppContext } from '../context.ts';
import { AppError } from '../errors.ts';
import { declaredRoutes, publicRoute } from '../http/declared-route.ts';
import { dashboardFiles, type StaticFile } from './assets.ts';
import { UiBundles } from './ui-bundle.ts';

/** Files under public/ are served at /assets/<name>; index.html is the page at /. */
export const ASSETS_PREFIX = '/assets/';

/**
 * The dashboard talks only to its own origin and is never framed. It frames
 * canvases (the editor's preview): its own origin in path mode, the canvas
 * hosts in subdomain mode.
 */
export function securityHeaders(config: Pick<Config, 'urlMode' | 'baseUrl' | 'canvasHost'>): Record<string, string> {
  const frames = config.urlMode === 'subdomain' ? `'self' ${new URL(config.baseUrl).protocol}//*.${config.canvasHost}` : "'self'";
  return {
    'content-security-policy': `default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-src ${frames}; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'`,
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'same-origin',
  };
}

export interface DashboardRouteOptions {
  files?: Map<string, StaticFile>;
  bundles?: UiBundles;
  /**
   * Build /assets/dashboard.js now instead of on its first request (the
   * server does; in-process tests need not): from source a build takes tens
   * of milliseconds, more on a busy machine, and the first person to open
   * the dashboard after a start would wait for it. The editor's bundle
   * (CodeMirror, ~600 KB, a quarter of a second to build) stays on demand:
   * few people open the editor, and not first.
   */
  warm?: boolean;
}

/** The icon every page links (public/icon.svg), also answered at /favicon.ico. */
const ICON = 'icon.svg';

/** The bundle every dashboard page loads. */
export const PAGE_BUNDLE = 'dashboard.js';

/**
 * The dashboard shell: GET / and its static files. It owns only `/`,
 * `/assets/*` and `/favicon.ico`, so it never shadows /api, /auth, /v1, /c, /sdk or /healthz.
 * The page itself is public; what it shows comes from /api/* with the
 * visitor's session.
 */
export function dashboardRoutes(ctx: Pick<AppContext, 'config' | 'log'>, options: DashboardRouteOptions = {}) {
  const files = options.files ?? dashboardFiles();
  // Built on first use: the canvas host's port is known only once the server listens.
  let headers: Record<string, string> | null = null;
  const security = () => (headers ??= securityHeaders(ctx.config));
  const bundles =
    options.bundles ??
    new UiBundles((name, err) =>
      ctx.log.error('dashboard bundle unavailable', { name, error: err instanceof Error ? err.message : String(err) }),
    );
  if (options.warm) void bundles.get(PAGE_BUNDLE);
  const sendBundle = async (request: Request, name: string): Promise<Response> => {
    const asset = await bundles.get(name);
    if (!asset)
      return new Response('This part of the dashboard could not be built: see the server log.\n', {
        status: 503,
        headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' },
      });
    const headers = { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-cache', etag: asset.etag, ...security() };
    if (request.headers.get('if-none-match') === asset.etag) return new Response(null, { status: 304, headers });
    return new Response(asset.body, { headers });
  };
  const send = (file: StaticFile | undefined): Response => {
    if (!file) throw new AppError('NOT_FOUND', 'no such file');
    return new Response(Bun.file(file.path), {
      headers: { 'content-type': file.type, 'cache-control': 'no-cache', ...security() },
    });
  };
  const tag = 'SDK and dashboard';
  return declaredRoutes('dashboard', null, [
    publicRoute(
      { method: 'GET', path: '/', tag, summary: 'The dashboard', answer: { contentType: 'text/html', description: 'the dashboard' } },
      () => send(files.get('index.html')),
    ),
    publicRoute(
      {
        method: 'GET',
        path: '/favicon.ico',
        tag,
        summary:
          "Easel's icon, where a browser looks for one on its own (the sign-in and refusal pages, a canvas without an icon in path mode)",
        answer: { contentType: 'image/svg+xml', description: 'the icon' },
        errors: ['NOT_FOUND'],
      },
      () => send(files.get(ICON)),
    ),
    publicRoute(
      {
        method: 'GET',
        path: `${ASSETS_PREFIX}*`,
        tag,
        summary: "The dashboard's files",
        answer: { contentType: '*/*', description: 'a dashboard asset' },
        errors: ['NOT_FOUND'],
      },
      ({ params, request }) => (bundles.has(params['*']) ? sendBundle(request, params['*']) : send(files.get(params['*']))),
    ),
  ]);
}

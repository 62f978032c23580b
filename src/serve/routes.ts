import { Elysia } from 'elysia';
import { canvasUrl } from '../canvases/url.ts';
import type { AppContext } from '../context.ts';
import { renderError } from '../http/on-error.ts';
import { CanvasServer } from './canvas-server.ts';
import { canvasSlugFromHost } from './host.ts';

const servers = new WeakMap<AppContext, CanvasServer>();

/** One CanvasServer per app context, shared by the path routes and the subdomain dispatch (one cache, one set of listeners). */
export function canvasServerOf(ctx: AppContext): CanvasServer {
  let server = servers.get(ctx);
  if (!server) {
    server = new CanvasServer(ctx);
    servers.set(ctx, server);
  }
  return server;
}

/** Path and query of a request URL, still encoded. */
function splitUrl(url: string): { path: string; query: string } {
  const pathStart = url.indexOf('/', url.indexOf('//') + 2);
  const q = url.indexOf('?', pathStart);
  return q < 0 ? { path: url.slice(pathStart), query: '' } : { path: url.slice(pathStart, q), query: url.slice(q) };
}

/**
 * Path mode: `{base}/c/{slug}/…` (and `/c/{slug}` → 301 to the slash, query
 * kept). In subdomain mode the same paths redirect to the canvas's own host,
 * so old links keep working without sharing the dashboard's origin.
 */
export function serveRoutes(ctx: AppContext) {
  const server = canvasServerOf(ctx);
  const subdomain = ctx.config.urlMode === 'subdomain';

  const handle = (request: Request): Response | Promise<Response> => {
    const { path, query } = splitUrl(request.url);
    const afterPrefix = path.slice('/c/'.length);
    const slash = afterPrefix.indexOf('/');
    const slug = slash < 0 ? afterPrefix : afterPrefix.slice(0, slash);
    const base = `/c/${slug}/`;
    if (subdomain) {
      const rest = slash < 0 ? '' : afterPrefix.slice(slash + 1);
      return new Response(null, { status: 301, headers: { location: canvasUrl(ctx.config, slug) + rest + query } });
    }
    if (slash < 0) return new Response(null, { status: 301, headers: { location: base + query } });
    return server.handle(request, { slug, base }, afterPrefix.slice(slash + 1), query);
  };

  return new Elysia({ name: 'serve' })
    .all('/c/:slug', ({ request }) => handle(request), { parse: 'none' })
    .all('/c/:slug/*', ({ request }) => handle(request), { parse: 'none' });
}

/**
 * Subdomain mode: requests whose Host is `{slug}.{EASEL_CANVAS_HOST}` belong
 * to that canvas entirely and never reach the app's routes. Returns null for
 * every other host (the dashboard and the APIs on the base host).
 */
export function canvasHostHandler(ctx: AppContext): (request: Request) => Promise<Response> | null {
  if (ctx.config.urlMode !== 'subdomain') return () => null;
  const server = canvasServerOf(ctx);
  return (request) => {
    const { path, query } = splitUrl(request.url);
    const host = request.headers.get('host') ?? request.url.slice(request.url.indexOf('//') + 2, request.url.indexOf('/', request.url.indexOf('//') + 2));
    const slug = canvasSlugFromHost(ctx.config, host);
    if (slug === null) return null;
    return server
      .handle(request, { slug, base: '/' }, path.slice(1), query)
      .catch((err: unknown) => renderError(ctx, request, err, undefined));
  };
}

import { canvasUrl } from '../canvases/url.ts';
import type { AppContext } from '../context.ts';
import { renderError } from '../http/on-error.ts';
import { pathEndOf, pathStartOf, splitUrl } from '../http/url-path.ts';

import type { CanvasServer, Mount } from './canvas-server.ts';
import type { Maybe } from '../sync-first.ts';
import { canvasSlugFromHost, requestHost } from '../http/canvas-host.ts';

/**
 * `/c/{slug}…` on the base host. Path mode: the canvas's pages (and
 * `/c/{slug}` → 301 to the slash, query kept). Subdomain mode: 301 to the
 * canvas's own host, so old links keep working without sharing the
 * dashboard's origin. Null for any other path.
 */
function pathPages(
  ctx: Pick<AppContext, 'config' | 'log'>,
  server: CanvasServer,
): (request: Request, url: string, at: number) => Response | Promise<Response> | null {
  const subdomain = ctx.config.urlMode === 'subdomain';
  // Read in place in the request URL (`at`: where its path starts): only the slug, the rest and the query are cut out.
  return (request, url, at) => {
    if (!url.startsWith('/c/', at)) return null;
    const end = pathEndOf(url, at);
    const slugStart = at + '/c/'.length;
    const found = url.indexOf('/', slugStart);
    const slash = found < 0 || found > end ? -1 : found;
    const slug = url.slice(slugStart, slash < 0 ? end : slash);
    // Elysia's `/c/:slug` never matched an empty slug: those stay its 404.
    if (slug === '') return null;
    const query = url.slice(end);
    if (subdomain) {
      const rest = slash < 0 ? '' : url.slice(slash + 1, end);
      return new Response(null, { status: 301, headers: { location: canvasUrl(ctx.config, slug) + rest + query } });
    }
    const base = `/c/${slug}/`;
    if (slash < 0) return new Response(null, { status: 301, headers: { location: base + query } });
    return pageOf(ctx, server, request, { slug, base }, url.slice(slash + 1, end), query);
  };
}

/**
 * The page server's answer, at once when it has it; a throw, synchronous or
 * not, becomes the error page renderError makes.
 */
function pageOf(
  ctx: Pick<AppContext, 'log'>,
  server: CanvasServer,
  request: Request,
  mount: Mount,
  rest: string,
  query: string,
): Maybe<Response> {
  try {
    const answer = server.handle(request, mount, rest, query);
    return answer instanceof Promise ? answer.catch((err: unknown) => renderError(ctx, request, err, undefined)) : answer;
  } catch (err) {
    return renderError(ctx, request, err, undefined);
  }
}

/**
 * On a canvas host, what the app answers instead of the canvas's files: the
 * SDK and this canvas's own runtime API (realtime included), so a page on
 * its own origin calls them same-origin with its host's session and password
 * pass. Another canvas's API is never answered here.
 */
function answeredByApp(path: string, slug: string): boolean {
  if (path === '/sdk/v1.js' || path === '/sdk/v1.d.ts') return true;
  const own = `/v1/c/${slug}`;
  return path.startsWith(own) && (path.length === own.length || path[own.length] === '/');
}

/**
 * Canvas requests answered before Elysia's router (which added ~1.3 µs to a
 * ~4 µs page view when measured in process): in subdomain mode,
 * every request whose Host is `{slug}.{EASEL_CANVAS_HOST}` (those belong to
 * the canvas, but for its SDK and runtime API: answeredByApp); in both modes,
 * `/c/{slug}…` on the base host. Null for everything else (the dashboard and
 * the APIs).
 */
export function canvasPageDispatcher(
  ctx: Pick<AppContext, 'config' | 'log'>,
  server: CanvasServer,
): (request: Request) => Response | Promise<Response> | null {
  const pages = pathPages(ctx, server);
  const subdomain = ctx.config.urlMode === 'subdomain';
  return (request) => {
    const url = request.url;
    if (subdomain) {
      const slug = canvasSlugFromHost(ctx.config, requestHost(request));
      if (slug !== null) {
        const { path, query } = splitUrl(url);
        if (answeredByApp(path, slug)) return null;
        return pageOf(ctx, server, request, { slug, base: '/' }, path.slice(1), query);
      }
    }
    return pages(request, url, pathStartOf(url));
  };
}

import type { AccessResolver } from '../canvases/access-resolver.ts';
import type { AppContext } from '../context.ts';
import { canvasSlugFromHost } from '../http/canvas-host.ts';

/** The canvas a browser request comes from, by its Referer (path mode: `/c/{slug}/…` on the base origin; subdomain mode: the canvas host). */
export function refererSlug(ctx: AppContext, request: Request): string | null {
  const referer = request.headers.get('referer');
  if (!referer) return null;
  let url: URL;
  try {
    url = new URL(referer);
  } catch {
    return null;
  }
  if (ctx.config.urlMode === 'subdomain') return canvasSlugFromHost(ctx.config, url.host);
  if (url.origin !== new URL(ctx.config.baseUrl).origin) return null;
  return /^\/c\/([a-z0-9-]+)\//.exec(url.pathname)?.[1] ?? null;
}

/**
 * For sdkRoutes' `admitAnonymousVisitor`: may a visitor without a session
 * load /sdk/v1.js? Only from a page of a canvas an anonymous visitor may see
 * right now (an open Public link canvas, past its password gate), so the page
 * works; its runtime calls still answer STATIC_ONLY.
 */
export function anonymousSdkVisitor(ctx: AppContext, access: AccessResolver): (request: Request) => Promise<boolean> {
  return async (request) => {
    const slug = refererSlug(ctx, request);
    if (!slug) return false;
    const facts = await access.bySlug(slug);
    return facts !== null && (await access.resolve(request, facts, null)).decision.ok;
  };
}

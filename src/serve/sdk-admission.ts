import type { AccessResolver } from '../canvases/access-resolver.ts';
import type { AppContext } from '../context.ts';
import type { Core } from '../foundation.ts';
import { canvasSlugFromHost } from '../http/canvas-host.ts';
import { previewPrincipal, previewTokenOfPath } from '../drafts/preview-principal.ts';

/** The canvas a browser request comes from, by its Referer (path mode: `/c/{slug}/…` on the base origin; subdomain mode: the canvas host). */
export function refererSlug(ctx: Pick<AppContext, 'config'>, request: Request): string | null {
  return refererPage(ctx, request)?.slug ?? null;
}

/** The canvas page a request comes from: its slug and its path below the canvas's root (still encoded). */
export function refererPage(ctx: Pick<AppContext, 'config'>, request: Request): { slug: string; rest: string } | null {
  const referer = request.headers.get('referer');
  if (!referer) return null;
  let url: URL;
  try {
    url = new URL(referer);
  } catch {
    return null;
  }
  if (ctx.config.urlMode === 'subdomain') {
    const slug = canvasSlugFromHost(ctx.config, url.host);
    return slug === null ? null : { slug, rest: url.pathname.slice(1) };
  }
  if (url.origin !== new URL(ctx.config.baseUrl).origin) return null;
  const m = /^\/c\/([a-z0-9-]+)\/(.*)$/.exec(url.pathname);
  return m ? { slug: m[1]!, rest: m[2]! } : null;
}

/**
 * For sdkRoutes: may this request load /sdk/v1.js as the editor's draft
 * preview? Its page's address holds a good preview token of the canvas (in
 * subdomain mode no session reaches that cross-site frame on the canvas host).
 */
export function draftPreviewSdkVisitor(
  ctx: Pick<Core, 'config' | 'instanceSecret' | 'now' | 'users'>,
  access: AccessResolver,
): (request: Request) => Promise<boolean> {
  return async (request) => {
    const page = refererPage(ctx, request);
    const token = page ? previewTokenOfPath(page.rest) : null;
    if (!page || !token) return false;
    const facts = await access.bySlug(page.slug);
    return facts !== null && (await previewPrincipal(ctx, facts.canvas.id, token)) !== null;
  };
}

/**
 * For sdkRoutes' `admitAnonymousVisitor`: may a visitor without a session
 * load /sdk/v1.js? Only from a page of a canvas an anonymous visitor may see
 * right now (an open Public link canvas, past its password gate), so the page
 * works; its runtime calls still answer STATIC_ONLY.
 */
export function anonymousSdkVisitor(ctx: Pick<AppContext, 'config'>, access: AccessResolver): (request: Request) => Promise<boolean> {
  return async (request) => {
    const slug = refererSlug(ctx, request);
    if (!slug) return false;
    const facts = await access.bySlug(slug);
    return facts !== null && (await access.resolve(request, facts, null)).decision.ok;
  };
}

/** Who loads the SDK without a session: an open Public link canvas's visitor, or the editor's draft preview. */
export function sdkVisitorWithoutSession(
  ctx: Pick<Core, 'config' | 'instanceSecret' | 'now' | 'users'>,
  access: AccessResolver,
): (request: Request) => Promise<boolean> {
  const anonymous = anonymousSdkVisitor(ctx, access);
  const preview = draftPreviewSdkVisitor(ctx, access);
  return async (request) => (await anonymous(request)) || (await preview(request));
}

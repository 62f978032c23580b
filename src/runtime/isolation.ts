import type { Config } from '../config.ts';
import { AppError } from '../errors.ts';

/** The only origin a canvas's runtime calls may come from in subdomain mode (CONTRACT §9). */
export function canvasOrigin(config: Pick<Config, 'baseUrl' | 'canvasHost'>, slug: string): string {
  return `${new URL(config.baseUrl).protocol}//${slug}.${config.canvasHost}`;
}

const CORS_METHODS = 'GET,HEAD,POST,PUT,PATCH,DELETE,OPTIONS';
// Header names a preflight may ask for (RFC 9110 tokens), comma separated.
const HEADER_LIST = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+(\s*,\s*[A-Za-z0-9!#$%&'*+.^_`|~-]+)*$/;

/**
 * The credentialed CORS headers for a request whose Origin is exactly this
 * canvas's origin in subdomain mode; empty otherwise (path mode sends none).
 */
export function corsHeaders(config: Config, request: Request, slug: string): Record<string, string> {
  if (config.urlMode !== 'subdomain') return {};
  const origin = request.headers.get('origin');
  if (origin === null || origin !== canvasOrigin(config, slug)) return {};
  return { 'access-control-allow-origin': origin, 'access-control-allow-credentials': 'true', vary: 'Origin' };
}

/** The 204 preflight answer: before the auth gateway, so it never says 401. */
export function preflightResponse(config: Config, request: Request, slug: string): Response {
  const requested = request.headers.get('access-control-request-headers')?.trim() ?? '';
  const headers: Record<string, string> = {
    'access-control-allow-methods': CORS_METHODS,
    'access-control-allow-headers': requested && requested.length <= 2048 && HEADER_LIST.test(requested) ? requested : 'Content-Type',
    'access-control-max-age': '600',
    ...corsHeaders(config, request, slug),
  };
  return new Response(null, { status: 204, headers });
}

/**
 * Step 4 of the pipeline, cross-canvas isolation. Subdomain mode: an Origin
 * that is not exactly the canvas's own is refused (none passes). Path mode:
 * a cross-site fetch is refused, then a Referer outside /c/{slug}.
 */
export function checkIsolation(config: Config, request: Request, slug: string): void {
  if (config.urlMode === 'subdomain') {
    const origin = request.headers.get('origin');
    if (origin !== null && origin !== canvasOrigin(config, slug)) {
      throw new AppError('CROSS_CANVAS_FORBIDDEN', 'this request comes from another origin than the canvas');
    }
    return;
  }
  const site = request.headers.get('sec-fetch-site');
  if (site !== null && site !== 'same-origin' && site !== 'none') {
    throw new AppError('CROSS_SITE_FORBIDDEN', 'cross-site requests to the runtime API are refused');
  }
  const referer = request.headers.get('referer');
  if (referer !== null && !refererWithin(referer, slug)) {
    throw new AppError('CROSS_CANVAS_FORBIDDEN', 'this request comes from another canvas or page');
  }
}

function refererWithin(referer: string, slug: string): boolean {
  let path: string;
  try {
    // Relative to a dummy base: an absolute Referer keeps its own path, and `..` segments are resolved.
    path = new URL(referer, 'http://referer.invalid').pathname;
  } catch {
    return false;
  }
  const root = `/c/${slug}`;
  return path === root || path.startsWith(root + '/');
}

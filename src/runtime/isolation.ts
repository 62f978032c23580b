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
 * Response headers beyond the CORS-safelisted ones that a canvas on its own
 * origin must be able to read: the rate-limit answer (Retry-After and the
 * X-RateLimit-* trio, on 429s) and the Connections proxy's mark of an
 * upstream answer (the SDK's `connections.fetch` reads it).
 */
export const EXPOSED_HEADERS = [
  'Retry-After',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'X-Easel-Connection-Response',
].join(', ');

/**
 * The CORS headers of a runtime API answer. Subdomain mode: `Vary: Origin`
 * always (the answer depends on the Origin, so a cache must never hand an
 * answer without CORS headers to a CORS request), plus the credentialed
 * headers and the exposed names when the Origin is exactly this canvas's
 * origin. Path mode: none.
 */
export function corsHeaders(config: Config, request: Request, slug: string): Record<string, string> {
  if (config.urlMode !== 'subdomain') return {};
  const origin = request.headers.get('origin');
  if (origin === null || origin !== canvasOrigin(config, slug)) return { vary: 'Origin' };
  return {
    'access-control-allow-origin': origin,
    'access-control-allow-credentials': 'true',
    'access-control-expose-headers': EXPOSED_HEADERS,
    vary: 'Origin',
  };
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

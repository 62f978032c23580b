// Cross-site request forgery on the dashboard's routes (CONTRACT §9, "Decided
// 2026-11-23"): an unsafe method on `/api/*`, `/auth/logout` or
// `/auth/dev/login` is refused with 403 CROSS_SITE_FORBIDDEN when
//   - its Origin is present and is not the dashboard's (EASEL_BASE_URL's origin), or
//   - its Sec-Fetch-Site says it came from another origin, or
//   - it sends neither Origin nor Sec-Fetch-Site and carries no bearer token.
// Browsers send Origin on every unsafe request (Sec-Fetch-* only over https),
// so a page of another site, or of a sibling canvas host, is caught by the
// first rule; a bare request is a browser too old to say where it came from,
// or a script: scripts authenticate with a bearer token, which no other page
// can make a browser send. The management door (src/canvases/guard.ts),
// POST /auth/logout and POST /auth/dev/login (src/auth/routes.ts) call this.
import type { Config } from '../config.ts';
import { AppError } from '../errors.ts';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const BEARER = /^bearer\s+\S/i;

/** The origin the dashboard is served from; its own fetches carry it as Origin. */
export function dashboardOrigin(config: Pick<Config, 'baseUrl'>): string {
  return new URL(config.baseUrl).origin;
}

/** Throws 403 CROSS_SITE_FORBIDDEN for an unsafe request that did not come from the dashboard (see above). */
export function refuseCrossSiteWrite(config: Pick<Config, 'baseUrl'>, request: Request): void {
  if (SAFE_METHODS.has(request.method)) return;
  const origin = request.headers.get('origin');
  const site = request.headers.get('sec-fetch-site');
  if (origin !== null && origin !== dashboardOrigin(config)) {
    throw new AppError('CROSS_SITE_FORBIDDEN', `requests that change something must come from the dashboard (${dashboardOrigin(config)})`);
  }
  if (site !== null && site !== 'same-origin' && site !== 'none') {
    throw new AppError('CROSS_SITE_FORBIDDEN', 'requests that change something must come from the dashboard');
  }
  if (origin === null && site === null && !BEARER.test(request.headers.get('authorization') ?? '')) {
    throw new AppError(
      'CROSS_SITE_FORBIDDEN',
      'a request that changes something needs an Origin header (browsers send it) or a bearer token (scripts)',
    );
  }
}
